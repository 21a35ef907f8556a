import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_MESSAGE } from '../errors/httpError.js';
import { createInProcessRateLimiter } from '../rateLimit/inProcessRateLimiter.js';
import { tenantRateLimitPlugin } from '../rateLimit/rateLimitPlugin.js';
import { FIXED_TENANTS, fixedTenantProjects, KEYS, testApp, verifyFixedKeys } from '../testing/testApp.js';
import { createJwtVerifier } from './jwtVerifier.js';
import { requireCaller } from './requireCaller.js';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const expandScopes = (scopes: readonly string[]) =>
  scopes.flatMap((s) =>
    s === 'recordings.read' ? ['recording:read'] : s === 'chat.write' ? ['chat:write'] : [],
  );

async function token(
  claims: Record<string, unknown>,
  options: { secret?: string; exp?: string | number } = {},
) {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('user_1')
    .setIssuedAt()
    .setExpirationTime(options.exp ?? '5m')
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

const tenantProjects = fixedTenantProjects(FIXED_TENANTS);

const userClaims = { tenant_id: 'tenant_a', project_ids: ['proj_a', 'proj_c'], scope: 'recordings.read' };

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
  const verifyJwt = createJwtVerifier({ secret: SECRET, expandScopes, tenantProjects });
  const handler = async (request: { caller: unknown; principal: unknown }) => ({
    success: true,
    data: { caller: request.caller, principal: request.principal },
  });
  app.get(
    '/projects/:projectId/things',
    {
      preHandler: requireCaller({
        verifyApiKey: verifyFixedKeys,
        verifyJwt,
        permission: 'recording:read',
        projectParam: 'projectId',
      }),
    },
    handler,
  );
  app.get(
    '/anywhere',
    { preHandler: requireCaller({ verifyApiKey: verifyFixedKeys, verifyJwt, permission: 'recording:read' }) },
    handler,
  );
  app.get(
    '/no-jwt',
    { preHandler: requireCaller({ verifyApiKey: verifyFixedKeys, permission: 'recording:read' }) },
    handler,
  );
  app.get(
    '/whoami',
    { preHandler: requireCaller({ verifyApiKey: verifyFixedKeys, verifyJwt, permission: null }) },
    handler,
  );
});

const call = (url: string, headers: Record<string, string | undefined> = {}) =>
  app.inject({
    url,
    headers: Object.fromEntries(
      Object.entries({ 'x-request-id': 'req-9', ...headers }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>,
  });

describe('requireCaller', () => {
  it('takes a platform key in x-api-key or as a bearer, and sets caller and principal', async () => {
    const sent: Array<Record<string, string>> = [
      { 'x-api-key': KEYS.good },
      { authorization: `Bearer ${KEYS.good}` },
    ];
    for (const headers of sent) {
      const res = await call('/projects/proj_a/things', headers);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({
        caller: {
          kind: 'apiKey',
          subject: 'key_1',
          tenantId: 'tenant_a',
          projectIds: ['proj_a'],
          scopes: ['recordings.read'],
          permissions: ['recording:read'],
        },
        principal: expect.objectContaining({ keyId: 'key_1', projectId: 'proj_a' }),
      });
    }
  });

  it('takes a user JWT (HS256): tenant, projects and permissions from its claims', async () => {
    const jwt = await token(userClaims);
    for (const projectId of ['proj_a', 'proj_c']) {
      const res = await call(`/projects/${projectId}/things`, { authorization: `Bearer ${jwt}` });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual({
        caller: {
          kind: 'jwt',
          subject: 'user_1',
          tenantId: 'tenant_a',
          projectIds: ['proj_a', 'proj_c'],
          scopes: ['recordings.read'],
          permissions: ['recording:read'],
        },
        principal: null,
      });
    }
  });

  it('answers every failed credential with the same 401 body', async () => {
    const cases: Array<Record<string, string>> = [
      {},
      { 'x-api-key': 'nonsense' },
      { 'x-api-key': KEYS.expired },
      { 'x-api-key': KEYS.revoked },
      { 'x-api-key': 'plat_unknown_0123456789abcdef' },
      {
        authorization: `Bearer ${await token(userClaims, { secret: 'another-secret-of-at-least-32-characters' })}`,
      },
      { authorization: `Bearer ${await token(userClaims, { exp: Math.floor(Date.now() / 1000) - 3600 })}` },
      { authorization: `Bearer ${await token({ ...userClaims, project_ids: 'proj_a' })}` },
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.x' },
      { authorization: `Bearer ${await token(userClaims)}`, 'x-api-key': KEYS.good },
      { authorization: `Basic ${KEYS.good}` },
    ];
    for (const headers of cases) {
      const res = await call('/projects/proj_a/things', headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual({ error: CREDENTIALS_MESSAGE, requestId: 'req-9' });
    }
  });

  it('refuses an unsigned (alg none) token even when it is well formed', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const body = Buffer.from(
      JSON.stringify({ ...userClaims, sub: 'u', exp: Math.floor(Date.now() / 1000) + 600 }),
    ).toString('base64url');
    const res = await call('/projects/proj_a/things', { authorization: `Bearer ${header}.${body}.c2ln` });
    expect(res.statusCode).toBe(401);
  });

  it('permission null (GET /api/v1/me): any authenticated key or JWT, scopes on the caller; refused types stay 403', async () => {
    const key = await call('/whoami', { 'x-api-key': KEYS.noPermission });
    expect(key.statusCode).toBe(200);
    expect(key.json().data.caller).toMatchObject({ kind: 'apiKey', scopes: ['ingest.write'] });
    const jwt = await call('/whoami', {
      authorization: `Bearer ${await token({ ...userClaims, scope: '' })}`,
    });
    expect(jwt.statusCode).toBe(200);
    expect(jwt.json().data.caller).toMatchObject({ kind: 'jwt', scopes: [], permissions: [] });
    expect((await call('/whoami', {})).statusCode).toBe(401);
    expect((await call('/whoami', { 'x-api-key': 'pk_live_x' })).json().error.code).toBe('FORBIDDEN');
  });

  it('answers a JWT with 401 where no JWT verifier is configured', async () => {
    const res = await call('/no-jwt', { authorization: `Bearer ${await token(userClaims)}` });
    expect(res.statusCode).toBe(401);
    expect((await call('/no-jwt', { 'x-api-key': KEYS.good })).statusCode).toBe(200);
  });

  it('refuses a pk_ key, an app assertion and an SDK token with 403 FORBIDDEN', async () => {
    const refused: Array<Record<string, string>> = [
      { 'x-public-key': 'pk_live_1' },
      { auth: 'a.b.c' },
      { 'x-sdk-token': 't' },
    ];
    for (const headers of refused) {
      const res = await call('/projects/proj_a/things', headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'FORBIDDEN', message: expect.any(String) },
      });
    }
  });

  it('answers 404 PROJECT_NOT_FOUND for a project the caller does not reach, before the permission', async () => {
    const jwt = await token({ ...userClaims, scope: '' });
    for (const headers of [
      { 'x-api-key': KEYS.good },
      { 'x-api-key': KEYS.noPermission },
      { authorization: `Bearer ${jwt}` },
    ]) {
      const res = await call('/projects/proj_b/things', headers);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PROJECT_NOT_FOUND', message: 'Project not found' },
      });
    }
  });

  it('answers 403 TENANT_CONTEXT_REQUIRED to a JWT without tenant_id or naming an unknown tenant', async () => {
    for (const claims of [
      { project_ids: ['proj_a'], scope: 'recordings.read' },
      { ...userClaims, tenant_id: 'tenant_unknown' },
    ]) {
      for (const url of ['/projects/proj_a/things', '/anywhere', '/whoami']) {
        const res = await call(url, { authorization: `Bearer ${await token(claims)}` });
        expect(res.statusCode, url).toBe(403);
        expect(res.json()).toEqual({
          success: false,
          error: { code: 'TENANT_CONTEXT_REQUIRED', message: 'tenant context required' },
        });
      }
    }
  });

  it("never lets a JWT reach another tenant's project by naming it in project_ids (404)", async () => {
    // tenant_a's user naming tenant_b's project; tenant_b's user naming tenant_a's.
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...userClaims, project_ids: ['proj_a', 'proj_b'] }, 'proj_b'],
      [{ ...userClaims, tenant_id: 'tenant_b', project_ids: ['proj_a', 'proj_b'] }, 'proj_a'],
    ];
    for (const [claims, foreign] of cases) {
      const jwt = await token(claims);
      const res = await call(`/projects/${foreign}/things`, { authorization: `Bearer ${jwt}` });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('PROJECT_NOT_FOUND');
      const own = claims.tenant_id === 'tenant_b' ? 'proj_b' : 'proj_a';
      const ok = await call(`/projects/${own}/things`, { authorization: `Bearer ${jwt}` });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().data.caller.projectIds).toEqual([own]);
    }
  });

  it('answers 403 PERMISSION_REQUIRED with required when the caller lacks the permission', async () => {
    const jwt = await token({ ...userClaims, scope: 'chat.write' });
    for (const headers of [{ 'x-api-key': KEYS.noPermission }, { authorization: `Bearer ${jwt}` }]) {
      const res = await call('/projects/proj_a/things', headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PERMISSION_REQUIRED', message: expect.any(String) },
        required: 'recording:read',
      });
    }
  });

  it('checks no project on routes without a project parameter', async () => {
    const res = await call('/anywhere', { authorization: `Bearer ${await token(userClaims)}` });
    expect(res.statusCode).toBe(200);
  });
});

describe('requireCaller with the tenant rate limit', () => {
  it("counts a JWT caller against its token's tenant, as a key against its own", async () => {
    const limited = await testApp();
    await limited.register(tenantRateLimitPlugin, { limiter: createInProcessRateLimiter(), defaultLimit: 2 });
    const verifyJwt = createJwtVerifier({ secret: SECRET, expandScopes, tenantProjects });
    limited.get(
      '/limited',
      {
        preHandler: requireCaller({ verifyApiKey: verifyFixedKeys, verifyJwt, permission: 'recording:read' }),
      },
      async () => ({ success: true }),
    );
    const jwt = await token(userClaims);
    const statuses = [];
    for (const headers of [
      { authorization: `Bearer ${jwt}` },
      { 'x-api-key': KEYS.good },
      { authorization: `Bearer ${jwt}` },
    ]) {
      const res = await limited.inject({ url: '/limited', headers });
      statuses.push(res.statusCode);
      expect(res.headers['x-ratelimit-remaining']).toBeDefined();
    }
    // Both callers are tenant_a: the third request of the tenant in the second is refused.
    expect(statuses).toEqual([200, 200, 429]);
    await limited.close();
  });

  it('is not escaped by rotating tenant_id: a token naming a tenant that does not exist gets nothing', async () => {
    const limited = await testApp();
    await limited.register(tenantRateLimitPlugin, { limiter: createInProcessRateLimiter(), defaultLimit: 2 });
    const verifyJwt = createJwtVerifier({ secret: SECRET, expandScopes, tenantProjects });
    limited.get(
      '/projects/:projectId/limited',
      {
        preHandler: requireCaller({
          verifyApiKey: verifyFixedKeys,
          verifyJwt,
          permission: 'recording:read',
          projectParam: 'projectId',
        }),
      },
      async () => ({ success: true }),
    );
    const statuses = [];
    for (let i = 0; i < 5; i += 1) {
      const jwt = await token({ ...userClaims, tenant_id: `tenant_rotated_${i}` });
      statuses.push(
        (
          await limited.inject({
            url: '/projects/proj_a/limited',
            headers: { authorization: `Bearer ${jwt}` },
          })
        ).statusCode,
      );
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403]);
    await limited.close();
  });
});
