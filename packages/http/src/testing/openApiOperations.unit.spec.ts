import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fillPath,
  listOperations,
  minimalValue,
  paramContext,
  pathParamsOf,
  UnfilledParameterError,
} from './openApiOperations.js';

const doc = {
  openapi: '3.1.0',
  components: {
    schemas: {
      Agent: {
        type: 'object',
        properties: { name: { type: 'string', minLength: 3 }, kind: { enum: ['a', 'b'] } },
        required: ['name', 'kind'],
      },
    },
    parameters: { Limit: { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } } },
  },
  paths: {
    '/projects/{projectId}/agents/{name}': {
      parameters: [{ name: 'projectId', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'getAgent',
        parameters: [
          { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
          { $ref: '#/components/parameters/Limit' },
        ],
        security: [{ apiKey: [] }, { bearer: [] }],
        responses: { '200': { description: 'ok' } },
      },
      patch: {
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Agent' } } },
        },
        responses: {},
      },
    },
    '/healthz': { get: { responses: {} } },
  },
};

describe('listOperations', () => {
  it('lists every method of every path with parameters, body and security, refs resolved', () => {
    const ops = listOperations(doc);
    expect(ops.map((o) => `${o.method} ${o.path}`)).toEqual([
      'GET /projects/{projectId}/agents/{name}',
      'PATCH /projects/{projectId}/agents/{name}',
      'GET /healthz',
    ]);
    const [get, patch, health] = ops;
    expect(get?.operationId).toBe('getAgent');
    expect(get?.pathParams).toEqual(['projectId', 'name']);
    expect(get?.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).toEqual([
      'path:projectId:true',
      'path:name:true',
      'query:limit:false',
    ]);
    expect(get?.security).toEqual([['apiKey'], ['bearer']]);
    expect(patch?.requestBody).toMatchObject({ required: true, contentType: 'application/json' });
    expect(patch?.requestBody?.schema.required).toEqual(['name', 'kind']);
    expect(health?.security).toBeNull();
  });
});

describe('fillPath and paramContext', () => {
  it('fills and encodes every parameter, and names the ones it has no value for', () => {
    const op = { method: 'GET', path: '/projects/{projectId}/agents/{name}' };
    expect(fillPath(op, { projectId: 'p 1', name: 'a/b' })).toBe('/projects/p%201/agents/a%2Fb');
    expect(() => fillPath(op, { projectId: 'p' })).toThrow(UnfilledParameterError);
    expect(() => fillPath(op, {})).toThrow(/projectId, name/);
  });

  it('tells the same parameter name apart by the segment before it', () => {
    expect(paramContext('/a/channel-connections/{id}', 'id')).toBe('channel-connections/{id}');
    expect(paramContext('/a/webhook-subscriptions/{id}/x', 'id')).toBe('webhook-subscriptions/{id}');
    expect(pathParamsOf('/x/{a}/y/{b}')).toEqual(['a', 'b']);
  });
});

describe('minimalValue', () => {
  it('builds the smallest value of a schema: required properties, enums, minimums', () => {
    expect(minimalValue(listOperations(doc)[1]?.requestBody?.schema)).toEqual({ name: 'xxx', kind: 'a' });
    expect(minimalValue({ type: 'array', minItems: 2, items: { type: 'integer', minimum: 5 } })).toEqual([
      5, 5,
    ]);
    expect(minimalValue({ anyOf: [{ type: 'null' }, { type: 'boolean' }] })).toBe(false);
    expect(minimalValue({ type: ['string', 'null'], format: 'uuid' })).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is always accepted by simple object schemas (property)', () => {
    const leaf = fc.oneof(
      fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ enum: fc.array(fc.string(), { minLength: 1, maxLength: 3 }) }),
      fc.constant({ type: 'boolean' }),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), leaf), (properties) => {
        const schema = { type: 'object', properties, required: Object.keys(properties) };
        const value = minimalValue(schema) as Record<string, unknown>;
        expect(Object.keys(value).sort()).toEqual(Object.keys(properties).sort());
        for (const [name, leafSchema] of Object.entries(properties) as Array<
          [string, Record<string, unknown>]
        >) {
          const v = value[name];
          if (leafSchema.type === 'string')
            expect((v as string).length).toBeGreaterThanOrEqual(leafSchema.minLength as number);
          if (leafSchema.type === 'integer') expect(v).toBe(leafSchema.minimum);
          if (leafSchema.enum) expect(leafSchema.enum).toContain(v);
          if (leafSchema.type === 'boolean') expect(typeof v).toBe('boolean');
        }
      }),
    );
  });
});
