import { createHmac } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { createInProcessRateLimiter, createJwtVerifier } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

let db: TestDatabase;
let auth: AuthStore;
let app: FastifyInstance;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let strangerProjectId: string;
let key: string;
let keyId: string;
const JWT_SECRET = 'test-secret-of-at-least-32-bytes-long!!';
const RATE_LIMIT = 40;

/** An HS256 JWT, signed by hand (node:crypto) as the identity provider would. */
function jwt(claims: Record<string, unknown>): string {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

beforeAll(async () => {
  db = await createTestDatabase([authMigrations]);
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support', name: 'Support desk' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales', name: 'Sales' })).id;
  const stranger = (await auth.createTenant({ name: 'Other' })).id;
  strangerProjectId = (await auth.createProject({ tenantId: stranger, slug: 'secret', name: 'Secret' })).id;
  const created = await auth.createApiKey({
    projectId,
    name: 'console key',
    scopes: ['analytics.read', 'traces.read'],
  });
  key = created.key;
  keyId = created.record.id;
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: RATE_LIMIT },
    me: {
      verifyApiKey: (raw) => auth.verifyApiKey(raw),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => auth.tenantProjects(t, p),
      }),
      lookups: auth,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await db?.close();
});

const get = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/api/v1/me', headers });

describe('GET /api/v1/me', () => {
  it('200 for a platform key (x-api-key or Bearer): every field, never the secret', async () => {
    const sent: Array<Record<string, string>> = [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }];
    for (const headers of sent) {
      const res = await get(headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toEqual({
        success: true,
        credential: { kind: 'api_key', id: keyId, name: 'console key', subject: null },
        tenantId,
        projects: [{ id: projectId, slug: 'support', name: 'Support desk' }],
        scopes: ['analytics.read', 'traces.read'],
        permissions: ['session_summary:read', 'llm_ledger:read', 'trace:read'],
      });
      expect(res.body).not.toContain(key);
    }
  });

  it("200 for a user JWT: subject, the tenant's projects in order (unknown or foreign ones left out), scopes split", async () => {
    const token = jwt({
      sub: 'user_42',
      tenant_id: tenantId,
      project_ids: [otherProjectId, projectId, 'proj_unknown', strangerProjectId],
      scope: 'traces.read  recordings.read no.such.scope',
    });
    const res = await get({ authorization: `Bearer ${token}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      credential: { kind: 'user_jwt', id: null, name: null, subject: 'user_42' },
      tenantId,
      projects: [
        { id: otherProjectId, slug: 'sales', name: 'Sales' },
        { id: projectId, slug: 'support', name: 'Support desk' },
      ],
      scopes: ['traces.read', 'recordings.read', 'no.such.scope'],
      permissions: ['trace:read', 'recording:read'],
    });
    expect(res.body).not.toContain(token);
  });

  it('200 for a JWT without scope or projects: empty lists (no permission needed)', async () => {
    const res = await get({ authorization: `Bearer ${jwt({ sub: 'u', tenant_id: tenantId })}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ projects: [], scopes: [], permissions: [] });
  });

  it('401 in the authentication envelope when missing or invalid', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { 'x-api-key': 'nonsense' },
      { 'x-api-key': 'plat_doesnotexist0000000000000000' },
      { authorization: `Bearer ${jwt({ sub: 'u', tenant_id: tenantId })}x` },
      { authorization: 'Basic abc' },
    ];
    const bodies = new Set<string>();
    for (const headers of cases) {
      const res = await get({ ...headers, 'x-request-id': 'req-me' });
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      const body = res.json();
      expect(body).toEqual({ error: expect.any(String), requestId: 'req-me' });
      bodies.add(JSON.stringify(body));
    }
    expect(bodies.size).toBe(1);
  });

  it('401 for a revoked key', async () => {
    const created = await auth.createApiKey({ projectId, name: 'gone', scopes: ['traces.read'] });
    await auth.revokeApiKey(created.record.id);
    expect((await get({ 'x-api-key': created.key })).statusCode).toBe(401);
  });

  it('403 FORBIDDEN for a pk_ key, an SDK token or an app assertion', async () => {
    const sent: Array<Record<string, string>> = [
      { 'x-api-key': 'pk_live_abcdef' },
      { authorization: 'Bearer pk_live_abcdef' },
      { 'x-public-key': 'pk_live_abcdef' },
      { 'x-sdk-token': jwt({ sub: 'visitor', typ: 'sdk' }) },
      { auth: jwt({ sub: 'app' }) },
    ];
    for (const headers of sent) {
      const res = await get(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json().error.code).toBe('FORBIDDEN');
    }
  });

  it('is documented in /openapi.json', async () => {
    const document = (await app.inject('/openapi.json')).json();
    expect(openApiProblems(document, [{ method: 'GET', url: '/api/v1/me' }])).toEqual([]);
    const responses = document.paths['/api/v1/me'].get.responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    expect(Object.keys(responses['200'].content['application/json'].schema.properties)).toEqual([
      'success',
      'credential',
      'tenantId',
      'projects',
      'scopes',
      'permissions',
    ]);
  });

  it('429 past the tenant rate limit (counts like other authenticated routes)', async () => {
    let limited = 0;
    for (let i = 0; i < RATE_LIMIT + 5; i += 1) {
      const res = await get({ 'x-api-key': key });
      if (res.statusCode === 429) {
        limited += 1;
        expect(res.json()).toEqual({ error: 'Too many requests', retryAfterMs: expect.any(Number) });
        expect(res.headers['retry-after']).toBeDefined();
      }
    }
    expect(limited).toBeGreaterThan(0);
  });
});
