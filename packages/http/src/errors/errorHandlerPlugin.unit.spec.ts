import { ParleyError } from '@parley/platform';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addRoute } from '../openapi/addRoute.js';
import { testApp } from '../testing/testApp.js';
import {
  AUTHENTICATION_MESSAGE,
  analyticsError,
  authenticationFailed,
  HttpError,
  permissionRequired,
  platformApiKeyRequired,
  projectNotFound,
  rateLimited,
} from './httpError.js';
import type { ApiFamily } from './toErrorReply.js';

/** One route per (family, error): GET /<family>/<name> throws it. */
const thrown: Record<string, () => Error> = {
  coded: () => new ParleyError('SESSION_NOT_FOUND', 404, 'no such session'),
  detailed: () =>
    new ParleyError('SESSION_NOT_FOUND', 404, 'no such session', { details: { table: 'sessions' } }),
  exposed: () =>
    new ParleyError('SESSION_KEY_IN_USE', 409, 'in use', {
      details: { session_key: 'ha:sub_1:abc' },
      exposeDetails: true,
    }),
  exposed500: () =>
    new ParleyError('INTERNAL_ERROR', 500, 'boom', { details: { host: '10.0.0.3' }, exposeDetails: true }),
  permission: () => permissionRequired('recording:read'),
  platformKey: () => platformApiKeyRequired(),
  project: () => projectNotFound(),
  auth: () => authenticationFailed(),
  analytics: () =>
    analyticsError(
      'INVALID_ENVIRONMENT',
      400,
      'environment must be one of dev, staging, production, working-copy',
      {
        details: { parameter: 'environment' },
        required: 'environment: dev, staging, production or working-copy',
      },
    ),
  limited: () => rateLimited(1500),
  boom: () => new Error('secret detail'),
  coded500: () => new ParleyError('INTERNAL_ERROR', 500, 'db password is hunter2'),
  unavailable: () => new HttpError('RECORDING_SETTINGS_UNAVAILABLE', 503, 'settings store at 10.0.0.3 down'),
  // What pg throws for U+0000 in a text parameter, and for the jsonb escapes (as pg's DatabaseError).
  nulText: () =>
    Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' }),
  nulJsonb: () => Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' }),
  surrogateJsonb: () =>
    Object.assign(new Error('invalid input syntax for type json'), {
      code: '22P02',
      detail: 'Unicode low surrogate must follow a high surrogate.',
    }),
  otherDataError: () => Object.assign(new Error('invalid input syntax for type uuid'), { code: '22P02' }),
  // Connection-class failures of a dependency, as node-postgres, pg-pool, net and ioredis raise them.
  pgShutdown: () =>
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  pgStarting: () => Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
  refused: () =>
    new AggregateError(
      [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
      'connect failed',
    ),
  poolTimeout: () => new Error('timeout exceeded when trying to connect'),
  terminated: () => new Error('Connection terminated unexpectedly'),
  wrapped500: () =>
    new ParleyError('INTERNAL_ERROR', 500, 'lookup failed', {
      cause: Object.assign(new Error('connection failure'), { code: '08006' }),
    }),
  client400: () =>
    Object.assign(new Error('bad body'), {
      statusCode: 400,
      cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }),
    }),
};

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp({ bodyLimit: 100 });
  for (const family of ['platform', 'recordings', 'analytics'] as ApiFamily[]) {
    for (const [name, make] of Object.entries(thrown)) {
      app.get(`/${family}/${name}`, { config: { apiFamily: family } }, async () => {
        throw make();
      });
    }
  }
  app.post('/echo', async (request) => request.body);
  addRoute(app, {
    method: 'GET',
    url: '/validated',
    summary: 'validated',
    querystring: z.object({ limit: z.coerce.number().int().min(1).max(10) }),
    response: { 200: z.object({ limit: z.number() }) },
    handler: async (request) => ({ limit: request.query.limit }),
  });
});

const get = (url: string) => app.inject({ url, headers: { 'x-request-id': 'req-1' } });

describe('standard envelope', () => {
  it('carries code and message of a coded error', async () => {
    for (const family of ['platform', 'recordings']) {
      const res = await get(`/${family}/coded`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'SESSION_NOT_FOUND', message: 'no such session' },
      });
    }
  });

  it('carries details only when the error exposes them, and never on a 5xx', async () => {
    expect((await get('/platform/detailed')).json()).toEqual({
      success: false,
      error: { code: 'SESSION_NOT_FOUND', message: 'no such session' },
    });
    const exposed = await get('/platform/exposed');
    expect(exposed.statusCode).toBe(409);
    expect(exposed.json()).toEqual({
      success: false,
      error: { code: 'SESSION_KEY_IN_USE', message: 'in use', details: { session_key: 'ha:sub_1:abc' } },
    });
    expect((await get('/platform/exposed500')).json()).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal error' },
    });
  });

  it('adds the sibling `required` on 403 PERMISSION_REQUIRED', async () => {
    const res = await get('/recordings/permission');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'PERMISSION_REQUIRED', message: 'This API key lacks the permission recording:read' },
      required: 'recording:read',
    });
  });

  it('answers 403 PLATFORM_API_KEY_REQUIRED and 404 PROJECT_NOT_FOUND', async () => {
    const refused = await get('/recordings/platformKey');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('PLATFORM_API_KEY_REQUIRED');
    const missing = await get('/recordings/project');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      success: false,
      error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found' },
    });
  });

  it('never shows the message of a 5xx', async () => {
    for (const family of ['platform', 'recordings']) {
      const boom = await get(`/${family}/boom`);
      expect(boom.statusCode).toBe(500);
      expect(boom.json()).toEqual({
        success: false,
        error: { code: 'INTERNAL_ERROR', message: 'Internal error' },
      });
      const coded = await get(`/${family}/coded500`);
      expect(coded.body).not.toContain('hunter2');
      const unavailable = await get(`/${family}/unavailable`);
      expect(unavailable.statusCode).toBe(503);
      expect(unavailable.json()).toEqual({
        success: false,
        error: { code: 'RECORDING_SETTINGS_UNAVAILABLE', message: 'Service unavailable' },
      });
    }
  });
});

describe('text PostgreSQL refused (the backstop of the request checks)', () => {
  it('is 400 VALIDATION_ERROR in the route family’s envelope, never a 500', async () => {
    for (const name of ['nulText', 'nulJsonb', 'surrogateJsonb']) {
      const platform = await get(`/platform/${name}`);
      expect(platform.statusCode).toBe(400);
      expect(platform.json()).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('U+0000') },
      });
      const analytics = await get(`/analytics/${name}`);
      expect(analytics.statusCode).toBe(400);
      expect(analytics.json()).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR', details: {} },
        required: '',
      });
    }
  });

  it('leaves other data errors as 500 INTERNAL_ERROR', async () => {
    const res = await get('/platform/otherDataError');
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('INTERNAL_ERROR');
  });
});

describe('authentication envelope (401)', () => {
  it('has error and requestId, no success and no code, on every API family', async () => {
    for (const family of ['platform', 'recordings', 'analytics']) {
      const res = await get(`/${family}/auth`);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: AUTHENTICATION_MESSAGE, requestId: 'req-1' });
    }
  });
});

describe('analytics envelope', () => {
  it('carries code, message, details, the top-level message and required', async () => {
    const res = await get('/analytics/analytics');
    expect(res.statusCode).toBe(400);
    const message = 'environment must be one of dev, staging, production, working-copy';
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'INVALID_ENVIRONMENT', message, details: { parameter: 'environment' } },
      message,
      required: 'environment: dev, staging, production or working-copy',
    });
  });

  it('is the envelope of every coded error on an analytics route, with empty details and required', async () => {
    const res = await get('/analytics/project');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found', details: {} },
      message: 'Project not found',
      required: '',
    });
    const permission = await get('/analytics/permission');
    expect(permission.json()).toMatchObject({ required: 'recording:read', error: { details: {} } });
  });

  it('is chosen by the error itself wherever it is thrown', async () => {
    const res = await get('/platform/analytics');
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'INVALID_ENVIRONMENT' },
      required: expect.any(String),
    });
  });

  it('hides 5xx messages in both places', async () => {
    const res = await get('/analytics/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'INTERNAL_ERROR', message: 'Internal error', details: {} },
      message: 'Internal error',
      required: '',
    });
  });
});

describe('rate-limited (429)', () => {
  it('platform APIs: { error, retryAfterMs } and Retry-After in seconds', async () => {
    const res = await get('/platform/limited');
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toEqual({ error: 'Too many requests', retryAfterMs: 1500 });
  });

  it('recordings API: standard envelope with RATE_LIMIT_EXCEEDED plus retryAfterMs', async () => {
    const res = await get('/recordings/limited');
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests' },
      retryAfterMs: 1500,
    });
  });

  it('analytics APIs: analytics envelope with retryAfterMs in details', async () => {
    const res = await get('/analytics/limited');
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', message: 'Too many requests', details: { retryAfterMs: 1500 } },
      message: 'Too many requests',
      required: '',
    });
  });
});

describe("Fastify's own 4xx keep the standard envelope", () => {
  it('malformed JSON is 400 BAD_REQUEST', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'BAD_REQUEST', message: expect.any(String) },
    });
  });

  it('a body over the limit is 413', async () => {
    const res = await app.inject({ method: 'POST', url: '/echo', payload: { x: 'y'.repeat(200) } });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('an unsupported media type is 415', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });

  it('a request failing its declared schema is 400 VALIDATION_ERROR', async () => {
    const res = await app.inject('/validated?limit=99');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^querystring\.limit: /) },
    });
    expect((await app.inject('/validated?limit=3')).json()).toEqual({ limit: 3 });
  });

  it('an unknown route is 404 NOT_FOUND, without the query string', async () => {
    const res = await app.inject('/nope?secret=1');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'no route for GET /nope' },
    });
  });

  it('every response carries x-request-id', async () => {
    expect((await get('/platform/coded')).headers['x-request-id']).toBe('req-1');
  });
});

describe('a dependency that is down (connection-class errors)', () => {
  const connectionClass = ['pgShutdown', 'pgStarting', 'refused', 'poolTimeout', 'terminated', 'wrapped500'];

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After in the standard envelope, never 500', async () => {
    for (const family of ['platform', 'recordings']) {
      for (const name of connectionClass) {
        const res = await get(`/${family}/${name}`);
        expect(res.statusCode, `${family}/${name}`).toBe(503);
        expect(res.headers['retry-after']).toBe('2');
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' },
        });
      }
    }
  });

  it('answers 503 in the analytics envelope on an analytics route', async () => {
    const res = await get('/analytics/pgShutdown');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable', details: {} },
      message: 'Service unavailable',
      required: '',
    });
  });

  it("keeps a client error's own status, and other 500s as they are", async () => {
    expect((await get('/platform/client400')).statusCode).toBe(400);
    const boom = await get('/platform/boom');
    expect(boom.statusCode).toBe(500);
    expect(boom.headers['retry-after']).toBeUndefined();
  });
});
