import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { analyticsError } from '../errors/httpError.js';
import { openApiProblems, recordRoutes } from '../testing/openApiProblems.js';
import { testApp } from '../testing/testApp.js';
import { addRoute } from './addRoute.js';
import { errorResponses } from './errorSchemas.js';
import { openApiPlugin } from './openApiPlugin.js';

let app: FastifyInstance;
let routes: Array<{ method: string; url: string }>;

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
  environment: z.enum(['dev', 'staging', 'production', 'working-copy']).optional(),
});
const page = z.object({
  success: z.literal(true),
  data: z.array(z.object({ id: z.string(), createdAt: z.string() })),
  pagination: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
});

beforeAll(async () => {
  app = await testApp();
  routes = recordRoutes(app);
  await app.register(openApiPlugin, {
    title: 'Test API',
    version: '1.2.3',
    apis: [{ name: 'analytics', tag: 'analytics', title: 'Things API', version: '1.0.0' }],
  });
  addRoute(app, {
    method: 'GET',
    url: '/api/public/analytics/projects/:projectId/things',
    summary: 'List things',
    tags: ['analytics'],
    operationId: 'listThings',
    security: [{ apiKey: [] }],
    apiFamily: 'analytics',
    validation: 'document',
    params: z.object({ projectId: z.string().min(1) }),
    querystring: listQuery,
    response: {
      200: page,
      400: errorResponses.analytics,
      401: errorResponses.authentication,
      429: errorResponses.analytics,
    },
    handler: async (request) => {
      // Document-only: the handler parses, with the spec's own codes.
      const parsed = listQuery.safeParse(request.query);
      if (!parsed.success) throw analyticsError('INVALID_ENVIRONMENT', 400, 'bad environment');
      return { success: true, data: [], pagination: { total: 0, limit: parsed.data.limit, offset: 0 } };
    },
  });
  addRoute(app, {
    method: 'POST',
    url: '/api/v1/things',
    summary: 'Create a thing',
    body: z.object({ name: z.string().min(1).max(100) }),
    response: {
      201: z.object({ success: z.literal(true), data: z.object({ id: z.string() }) }),
      400: errorResponses.standard,
    },
    handler: async (request, reply) =>
      reply.status(201).send({ success: true, data: { id: request.body.name } }),
  });
  await app.ready();
});

describe('OpenAPI document', () => {
  it('is served at /openapi.json and is valid OpenAPI 3.1 covering every route', async () => {
    const res = await app.inject('/openapi.json');
    expect(res.statusCode).toBe(200);
    const document = res.json();
    expect(document).toMatchObject({ openapi: '3.1.0', info: { title: 'Test API', version: '1.2.3' } });
    expect(routes.map((r) => `${r.method} ${r.url}`).sort()).toEqual([
      'GET /api/public/analytics/projects/:projectId/things',
      'GET /openapi.json',
      'GET /openapi/analytics.json',
      'POST /api/v1/things',
    ]);
    expect(openApiProblems(document, routes)).toEqual([]);
  });

  it('carries the shapes declared once in addRoute', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const list = document.paths['/api/public/analytics/projects/{projectId}/things'].get;
    expect(list.operationId).toBe('listThings');
    expect(list.security).toEqual([{ apiKey: [] }]);
    expect(list.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'projectId', in: 'path', required: true }),
        expect.objectContaining({ name: 'limit', in: 'query' }),
        expect.objectContaining({ name: 'environment', in: 'query' }),
      ]),
    );
    const ok = list.responses['200'].content['application/json'].schema;
    expect(ok.properties.pagination.required).toEqual(['total', 'limit', 'offset']);
    expect(list.responses['401'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/AuthenticationError',
    });
    const create = document.paths['/api/v1/things'].post;
    expect(create.requestBody.content['application/json'].schema.properties.name).toMatchObject({
      type: 'string',
      minLength: 1,
    });
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['StandardError', 'AuthenticationError', 'AnalyticsError', 'RateLimitedError']),
    );
  });

  it('serves each API its own description: its operations, the components they use, its version', async () => {
    const res = await app.inject('/openapi/analytics.json');
    expect(res.statusCode).toBe(200);
    const description = res.json();
    expect(description.info).toEqual({ title: 'Things API', version: '1.0.0' });
    expect(Object.keys(description.paths)).toEqual(['/api/public/analytics/projects/{projectId}/things']);
    const whole = (await app.inject('/openapi.json')).json();
    const path = '/api/public/analytics/projects/{projectId}/things';
    expect(description.paths[path]).toEqual(whole.paths[path]);
    // Only what the API's operations reach: the analytics and authentication errors, and the standard
    // envelope of the HTTP server's 431 (answered before any route, so in no family's envelope).
    expect(Object.keys(description.components.schemas).sort()).toEqual([
      'AnalyticsError',
      'AuthenticationError',
      'StandardError',
    ]);
    expect(Object.keys(description.components.securitySchemes)).toEqual(['apiKey']);
    expect(
      openApiProblems(description, [
        { method: 'GET', url: '/api/public/analytics/projects/:projectId/things' },
      ]),
    ).toEqual([]);
  });

  it('finds a broken document broken', () => {
    expect(openApiProblems({ openapi: '3.1.0' }, [])).not.toEqual([]);
    const problems = openApiProblems(
      {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        paths: { '/x': { get: { responses: { 200: { $ref: '#/components/responses/Nope' } } } } },
      },
      [{ method: 'GET', url: '/y' }],
    );
    expect(problems).toEqual([
      'unresolved $ref #/components/responses/Nope',
      'route GET /y missing from paths',
    ]);
  });
});

describe('addRoute', () => {
  it('validates with zod and hands the handler its output', async () => {
    const ok = await app.inject({ method: 'POST', url: '/api/v1/things', payload: { name: 'n1' } });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ success: true, data: { id: 'n1' } });
    const bad = await app.inject({ method: 'POST', url: '/api/v1/things', payload: { name: '' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('VALIDATION_ERROR');
  });

  it('in document mode leaves parsing, and its error codes, to the handler', async () => {
    const url = '/api/public/analytics/projects/p1/things';
    expect((await app.inject(`${url}?limit=5`)).json().pagination.limit).toBe(5);
    const bad = await app.inject(`${url}?environment=prod`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'INVALID_ENVIRONMENT', details: {} }, required: '' });
  });
});
