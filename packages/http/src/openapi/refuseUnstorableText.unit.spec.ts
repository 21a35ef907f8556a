import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { authenticationFailed } from '../errors/httpError.js';
import { testApp } from '../testing/testApp.js';
import { addRoute } from './addRoute.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
  const echo = async (request: { params: unknown; query: unknown; body: unknown }) => ({
    params: request.params,
    query: request.query,
    body: request.body ?? null,
  });
  addRoute(app, {
    method: 'POST',
    url: '/things/:id',
    summary: 'schema for every part',
    params: z.object({ id: z.string() }),
    querystring: z.object({ q: z.string().optional() }),
    body: z.object({ text: z.string(), meta: z.record(z.string(), z.unknown()).optional() }),
    response: { 200: z.unknown() },
    handler: echo,
  });
  addRoute(app, {
    method: 'GET',
    url: '/bare/:id',
    summary: 'no schema at all: the check reads the request as parsed',
    response: { 200: z.unknown() },
    handler: echo,
  });
  addRoute(app, {
    method: 'GET',
    url: '/analytics/:id',
    summary: 'analytics family',
    validation: 'document',
    apiFamily: 'analytics',
    response: { 200: z.unknown() },
    handler: echo,
  });
  addRoute(app, {
    method: 'POST',
    url: '/items',
    summary: 'the handler deals with the body',
    unstorableBody: 'handler',
    body: z.object({ items: z.array(z.unknown()) }),
    response: { 200: z.unknown() },
    handler: echo,
  });
  addRoute(app, {
    method: 'GET',
    url: '/guarded/:id',
    summary: 'authenticated first',
    preHandler: async () => {
      throw authenticationFailed();
    },
    response: { 200: z.unknown() },
    handler: echo,
  });
});

const post = (url: string, payload: unknown) =>
  app.inject({
    method: 'POST',
    url,
    payload: JSON.stringify(payload),
    headers: { 'content-type': 'application/json' },
  });

describe('text PostgreSQL cannot store, at the request', () => {
  it('refuses U+0000 in a path parameter, a query value and a body field, naming the field', async () => {
    const cases: Array<[Promise<{ statusCode: number; json(): unknown }>, string]> = [
      [post('/things/a%00b', { text: 'ok' }), 'params.id'],
      [post('/things/a?q=x%00', { text: 'ok' }), 'querystring.q'],
      [post('/things/a', { text: 'hello\u0000world' }), 'body.text'],
      [post('/things/a', { text: 'ok', meta: { deep: ['fine', 'x\ud800'] } }), 'body.meta.deep.1'],
      [post('/things/a', { text: 'ok', meta: { 'k\u0000': 1 } }), 'body.meta.k\u0000'],
      [app.inject('/bare/%00'), 'params.id'],
      [app.inject('/bare/x?anything=%00'), 'querystring.anything'],
    ];
    for (const [request, field] of cases) {
      const res = await request;
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: {
          code: 'VALIDATION_ERROR',
          message: `${field}: contains text that cannot be stored (U+0000 or an unpaired surrogate)`,
        },
      });
    }
  });

  it('lets storable text through, emoji (surrogate pairs) and U+FFFD included', async () => {
    const res = await post('/things/%F0%9F%98%80?q=%EF%BF%BD', { text: 'hi \ud83d\ude00' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ params: { id: '😀' }, query: { q: '\ufffd' }, body: { text: 'hi 😀' } });
  });

  it('answers in the analytics envelope on an analytics route', async () => {
    const res = await app.inject('/analytics/x?model=gpt%00');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', details: { field: 'querystring.model' } },
      message: expect.stringMatching(/^querystring\.model: /),
      required: '',
    });
  });

  it('leaves the body to a handler that deals with it, still refusing params and query', async () => {
    const res = await post('/items', { items: [{ text: 'a\u0000' }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().body.items[0].text).toBe('a\u0000');
    expect((await post('/items?x=%00', { items: [] })).statusCode).toBe(400);
  });

  it('authenticates first: an unauthenticated caller gets 401, not 400', async () => {
    const res = await app.inject('/guarded/%00');
    expect(res.statusCode).toBe(401);
  });
});
