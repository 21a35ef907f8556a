import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { openApiProblems } from '@parley/http/testing';
import { ParleyError, ping, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

const readiness = (pending: string[] = []) => ({
  database: () => ping(db.url),
  pendingMigrations: async () => pending,
});

describe('health routes', () => {
  it('GET /healthz answers ok without touching the database', async () => {
    const app = await buildApp({
      logger: silentLogger(),
      readiness: {
        database: () => Promise.reject(new Error('unreachable')),
        pendingMigrations: async () => [],
      },
    });
    const res = await app.inject('/healthz');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 when the database answers and migrations are current', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness() });
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok' },
      pendingMigrations: [],
    });
  });

  it('GET /readyz is 503 while migrations are pending', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness(['eventstore/0001_log']) });
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'not_ready',
      checks: { database: 'ok', migrations: 'failing' },
      pendingMigrations: ['eventstore/0001_log'],
    });
  });

  it('GET /readyz is 503 when the database does not answer', async () => {
    const app = await buildApp({
      logger: silentLogger(),
      readiness: {
        database: () => ping('postgres://nobody@127.0.0.1:1/none', 200),
        pendingMigrations: async () => [],
      },
    });
    const res = await app.inject('/readyz');
    expect(res.statusCode).toBe(503);
    expect(res.json().checks).toEqual({ database: 'failing', migrations: 'failing' });
  });
});

describe('conventions', () => {
  it('echoes a caller request id and makes one otherwise', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness() });
    const given = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers unknown routes with the standard error envelope (the analytics one under its APIs)', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness() });
    const res = await app.inject('/nope?x=1');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'no route for GET /nope' },
    });
    const analytics = await app.inject('/api/public/analytics/projects//sessions');
    expect(analytics.statusCode).toBe(404);
    const message = 'no route for GET /api/public/analytics/projects//sessions';
    expect(analytics.json()).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message, details: {} },
      message,
      required: '',
    });
  });

  it('maps coded errors to their status and hides the message of 5xx errors', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness() });
    app.get('/coded', async () => {
      throw new ParleyError('SESSION_NOT_FOUND', 404, 'no such session');
    });
    app.get('/boom', async () => {
      throw new Error('secret detail');
    });
    const coded = await app.inject('/coded');
    expect(coded.statusCode).toBe(404);
    expect(coded.json()).toEqual({
      success: false,
      error: { code: 'SESSION_NOT_FOUND', message: 'no such session' },
    });
    const boom = await app.inject('/boom');
    expect(boom.statusCode).toBe(500);
    expect(boom.json()).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal error' },
    });
  });

  it('answers malformed JSON with 400 and an over-limit body with 413', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness(), bodyLimit: 100 });
    app.post('/echo', async (req) => req.body);
    const bad = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    const big = await app.inject({ method: 'POST', url: '/echo', payload: { x: 'y'.repeat(200) } });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });
});

describe('answers given before any route runs', () => {
  it('414 URI_TOO_LONG, 400 for a bad URL and 431 for oversized headers, in the standard envelope, documented', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness() });
    app.get('/things/:id', { schema: { response: { 200: { type: 'object' } } } }, async () => ({}));
    app.get('/api/public/analytics/projects/:projectId/sessions', async () => ({}));
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const base = `http://127.0.0.1:${port}`;
      const long = await fetch(`${base}/things/${'a'.repeat(2049)}`);
      expect(long.status).toBe(414);
      expect(await long.json()).toEqual({
        success: false,
        error: { code: 'URI_TOO_LONG', message: 'A path parameter is longer than 2048 characters' },
      });
      const bad = await fetch(`${base}/things/%ED%A0%80`);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
      // On the analytics APIs, their own envelope (spec 000 §7).
      const analytics = await fetch(`${base}/api/public/analytics/projects/%ED%A0%80/sessions`);
      expect(analytics.status).toBe(400);
      expect(await analytics.json()).toEqual({
        success: false,
        error: { code: 'BAD_REQUEST', message: expect.any(String), details: {} },
        message: expect.any(String),
        required: '',
      });
      const headers = await fetch(`${base}/healthz`, { headers: { 'x-big': 'a'.repeat(20_000) } });
      expect(headers.status).toBe(431);
      expect(headers.headers.get('content-type')).toBe('application/json');
      expect(await headers.json()).toEqual({
        success: false,
        error: { code: 'REQUEST_HEADER_FIELDS_TOO_LARGE', message: expect.any(String) },
      });
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      expect(Object.keys(document.paths['/things/{id}']?.get?.responses ?? {}).sort()).toEqual([
        '200',
        '400',
        '414',
        '431',
      ]);
      expect(openApiProblems(document, [])).toEqual([]);
    } finally {
      await app.close();
    }
  });
});

describe('OpenAPI', () => {
  it('serves /openapi.json: valid OpenAPI 3.1 documenting every route, health included', async () => {
    const app = await buildApp({ logger: silentLogger(), readiness: readiness() });
    await app.ready();
    const res = await app.inject('/openapi.json');
    expect(res.statusCode).toBe(200);
    const document = res.json();
    const routes = [
      { method: 'GET', url: '/healthz' },
      { method: 'GET', url: '/readyz' },
      { method: 'GET', url: '/openapi.json' },
      { method: 'GET', url: '/openapi/recordings.json' },
      { method: 'GET', url: '/openapi/analytics.json' },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/healthz',
      '/openapi.json',
      '/openapi/analytics.json',
      '/openapi/recordings.json',
      '/readyz',
    ]);
    expect(Object.keys(document.paths['/readyz'].get.responses).sort()).toEqual(['200', '400', '431', '503']);
  });
});

describe('request logs', () => {
  it('are one line per request, at debug: nothing at info', async () => {
    const linesAt = async (level: string) => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const app = await buildApp({ logger: pino({ level }, sink), readiness: readiness() });
      await app.inject('/healthz');
      await app.inject('/no-such-route');
      await app.close();
      return lines.map((line) => JSON.parse(line) as { msg: string; res?: { statusCode: number } });
    };
    expect(await linesAt('info')).toEqual([]);
    const debug = await linesAt('debug');
    expect(debug.map((l) => [l.msg, l.res?.statusCode])).toEqual([
      ['request completed', 200],
      ['request completed', 404],
    ]);
  });
});
