import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { AUTHENTICATION_MESSAGE } from '../errors/httpError.js';
import { KEYS, testApp, verifyFixedKeys } from '../testing/testApp.js';
import { requireApiKey } from './requireApiKey.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
let app: FastifyInstance;
let verifyCalls = 0;

beforeAll(async () => {
  app = await testApp();
  const verify = async (raw: string) => {
    verifyCalls += 1;
    return verifyFixedKeys(raw);
  };
  const recordings = requireApiKey({ verify, permission: 'recording:read', allowBearer: true });
  const analytics = requireApiKey({ verify, permission: 'recording:read', allowBearer: false });
  const handler = async (request: { principal: unknown }) => ({ success: true, data: request.principal });
  app.get(
    '/recordings/projects/:projectId',
    { preHandler: recordings, config: { apiFamily: 'recordings' } },
    handler,
  );
  app.get(
    '/analytics/projects/:projectId',
    { preHandler: analytics, config: { apiFamily: 'analytics' } },
    handler,
  );
});

const call = (url: string, headers: Record<string, string> = {}) =>
  app.inject({ url, headers: { 'x-request-id': 'req-7', ...headers } });

describe('requireApiKey', () => {
  it('lets a bound key with the permission through and sets request.principal', async () => {
    const viaHeader = await call('/recordings/projects/proj_a', { 'x-api-key': KEYS.good });
    expect(viaHeader.statusCode).toBe(200);
    expect(viaHeader.json().data).toMatchObject({
      keyId: 'key_1',
      tenantId: 'tenant_a',
      projectId: 'proj_a',
    });
    const viaBearer = await call('/recordings/projects/proj_a', { authorization: `Bearer ${KEYS.good}` });
    expect(viaBearer.statusCode).toBe(200);
    const analytics = await call('/analytics/projects/proj_a', { 'x-api-key': KEYS.good });
    expect(analytics.statusCode).toBe(200);
  });

  it('answers every missing or failed key with the same 401 body', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { 'x-api-key': 'nonsense' },
      { 'x-api-key': KEYS.malformed },
      { 'x-api-key': 'plat_unknown_0123456789abcdef' },
      { 'x-api-key': KEYS.expired },
      { 'x-api-key': KEYS.revoked },
      { authorization: `Basic ${KEYS.good}` },
    ];
    for (const url of ['/recordings/projects/proj_a', '/analytics/projects/proj_a']) {
      for (const headers of cases) {
        const res = await call(url, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: AUTHENTICATION_MESSAGE, requestId: 'req-7' });
      }
    }
  });

  it('takes the bearer form on the analytics APIs as no credential (401)', async () => {
    const res = await call('/analytics/projects/proj_a', { authorization: `Bearer ${KEYS.good}` });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: AUTHENTICATION_MESSAGE, requestId: 'req-7' });
  });

  it('refuses a JWT, an app assertion and a pk_ key with 403 PLATFORM_API_KEY_REQUIRED', async () => {
    const refused: Array<Record<string, string>> = [
      { authorization: `Bearer ${JWT}` },
      { auth: JWT },
      { 'x-api-key': 'pk_live_0123456789' },
      { 'x-public-key': 'pk_live_0123456789' },
    ];
    for (const headers of refused) {
      const res = await call('/recordings/projects/proj_a', headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PLATFORM_API_KEY_REQUIRED', message: expect.any(String) },
      });
      const analytics = await call('/analytics/projects/proj_a', headers);
      expect(analytics.statusCode).toBe(403);
      expect(analytics.json()).toMatchObject({ error: { code: 'PLATFORM_API_KEY_REQUIRED', details: {} } });
    }
  });

  it('answers 404 PROJECT_NOT_FOUND for another project, identically whether it exists or not', async () => {
    const before = verifyCalls;
    const existing = await call('/recordings/projects/proj_b', { 'x-api-key': KEYS.good });
    const invented = await call('/recordings/projects/proj_nope', { 'x-api-key': KEYS.good });
    expect(verifyCalls - before).toBe(2);
    expect(existing.statusCode).toBe(404);
    expect(invented.statusCode).toBe(404);
    expect(existing.body).toBe(invented.body);
    expect(existing.json()).toEqual({
      success: false,
      error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found' },
    });
  });

  it('checks the project before the permission, so a foreign key never sees 403', async () => {
    const res = await call('/recordings/projects/proj_b', { 'x-api-key': KEYS.noPermission });
    expect(res.statusCode).toBe(404);
  });

  it('answers 403 PERMISSION_REQUIRED with required when the key lacks the permission', async () => {
    const res = await call('/recordings/projects/proj_a', { 'x-api-key': KEYS.noPermission });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'PERMISSION_REQUIRED', message: expect.any(String) },
      required: 'recording:read',
    });
  });

  it('never lets arbitrary credential headers through', async () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    });
    const value = fc.oneof(
      printable,
      printable.map((s) => `plat_${s}`),
      printable.map((s) => `Bearer ${s}`),
      printable.map((s) => `Bearer plat_${s}`),
      fc.constant(JWT),
    );
    const names = fc.constantFrom('x-api-key', 'authorization', 'auth', 'x-public-key', 'x-sdk-token');
    await fc.assert(
      fc.asyncProperty(fc.dictionary(names, value, { maxKeys: 3 }), async (headers) => {
        const res = await app.inject({ url: '/recordings/projects/proj_a', headers });
        expect([401, 403]).toContain(res.statusCode);
      }),
      { numRuns: 300 },
    );
  });
});
