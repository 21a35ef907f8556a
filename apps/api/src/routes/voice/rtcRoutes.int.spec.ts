import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { createInProcessRateLimiter, createJwtVerifier } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { loadConfig, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { connectTestRedis } from '@parley/platform/testing/redis';
import {
  createInProcessVoiceConcurrencyLimiter,
  createRedisVoiceConcurrencyLimiter,
  type VoiceConcurrencyLimiter,
  voiceSettingsOf,
} from '@parley/voice';
import { type RoomServiceStandIn, startRoomServiceStandIn } from '@parley/voice/testing';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { SignJWT } from 'jose';
import { TokenVerifier } from 'livekit-server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

const JWT_SECRET = 'voice-test-secret-of-at-least-32-characters';
const RTC = {
  VOICE_ENABLED: 'true',
  VOICE_RTC_URL: 'wss://rooms.example.com',
  VOICE_RTC_API_KEY: 'APIvoiceTest',
  VOICE_RTC_API_SECRET: 'rtc-secret-of-at-least-32-characters!!',
  VOICE_STT_ENGINE: 'pocketsphinx',
  VOICE_TTS_ENGINE: 'espeak-ng',
};

let db: TestDatabase;
let auth: AuthStore;
const apps: FastifyInstance[] = [];
let n = 0;

let rooms: RoomServiceStandIn;

beforeAll(async () => {
  // The token route creates rooms: a local room service stands in for the vendor's (rtcRooms.int.spec.ts checks its calls).
  rooms = await startRoomServiceStandIn({
    apiKey: RTC.VOICE_RTC_API_KEY,
    apiSecret: RTC.VOICE_RTC_API_SECRET,
  });
  RTC.VOICE_RTC_URL = rooms.url.replace(/^http/, 'ws');
  db = await createTestDatabase([authMigrations]);
  auth = createAuthStore(db.pool);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await db.close();
  await rooms.close();
});

async function newProject(scopes = ['chat.write']) {
  n += 1;
  const tenant = await auth.createTenant({ name: `voice tenant ${n}` });
  const project = await auth.createProject({ tenantId: tenant.id, slug: `voice-${n}` });
  const { key } = await auth.createApiKey({ projectId: project.id, name: 'voice', scopes });
  return { tenantId: tenant.id, projectId: project.id, key };
}

async function makeApp(
  env: Record<string, string> = RTC,
  limiter: VoiceConcurrencyLimiter = createInProcessVoiceConcurrencyLimiter(),
): Promise<FastifyInstance> {
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    rtcVoice: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => auth.tenantProjects(t, p),
      }),
      settings: voiceSettingsOf(loadConfig(env)),
      limiter,
    },
  });
  apps.push(app);
  return app;
}

const token = (app: FastifyInstance, key: string, body: unknown, path = '/api/v1/livekit/token') =>
  app.inject({ method: 'POST', url: path, headers: { 'x-api-key': key }, payload: body as object });

const errorOf = (res: { statusCode: number; json(): unknown }) => ({
  status: res.statusCode,
  code: (res.json() as { error?: { code?: string } }).error?.code,
});

describe('GET /api/v1/livekit/capabilities', () => {
  it('says whether voice is enabled and the room service configured', async () => {
    const { key } = await newProject();
    const cases: Array<[Record<string, string>, { enabled: boolean; configured: boolean }]> = [
      [RTC, { enabled: true, configured: true }],
      [
        { ...RTC, VOICE_ENABLED: 'false' },
        { enabled: false, configured: true },
      ],
      [
        { VOICE_ENABLED: 'true', VOICE_RTC_URL: RTC.VOICE_RTC_URL },
        { enabled: true, configured: false },
      ],
      [{}, { enabled: false, configured: false }],
    ];
    for (const [env, data] of cases) {
      const res = await (await makeApp(env)).inject({
        method: 'GET',
        url: '/api/v1/livekit/capabilities',
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, data });
    }
  });

  it('answers 401 without a credential and 403 PERMISSION_REQUIRED without chat:write', async () => {
    const app = await makeApp();
    const none = await app.inject({ method: 'GET', url: '/api/v1/livekit/capabilities' });
    expect(none.statusCode).toBe(401);
    const { key } = await newProject(['traces.read']);
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/livekit/capabilities',
      headers: { 'x-api-key': key },
    });
    expect(errorOf(res)).toEqual({ status: 403, code: 'PERMISSION_REQUIRED' });
  });
});

describe('OpenAPI', () => {
  it('documents the real-time operations under the vendor segment in a valid OpenAPI 3.1 document', async () => {
    const document = (await (await makeApp()).inject('/openapi.json')).json();
    const routes = [
      { method: 'GET', url: '/api/v1/livekit/capabilities' },
      { method: 'POST', url: '/api/v1/livekit/token' },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
  });
});

describe('POST /api/v1/livekit/token', () => {
  it('issues a token joining the tenant-scoped room, as the room service verifies it', async () => {
    const app = await makeApp({ ...RTC, VOICE_RTC_TOKEN_TTL_SECONDS: '900' });
    const { tenantId, projectId, key } = await newProject();
    const before = Math.floor(Date.now() / 1000);
    const res = await token(app, key, {
      sessionId: 'ses_Abc-1',
      projectId,
      agentName: 'billing-bot',
      deploymentId: 'dep_7',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const roomName = `${tenantId}-${projectId}-ses_Abc-1`;
    expect(body).toEqual({
      success: true,
      data: { token: expect.any(String), roomName, url: RTC.VOICE_RTC_URL, identity: 'user-ses_Abc-1' },
    });
    const claims = await new TokenVerifier(RTC.VOICE_RTC_API_KEY, RTC.VOICE_RTC_API_SECRET).verify(
      body.data.token,
    );
    const ids = {
      tenantId,
      projectId,
      sessionId: 'ses_Abc-1',
      agentName: 'billing-bot',
      deploymentId: 'dep_7',
    };
    expect(claims).toMatchObject({
      iss: RTC.VOICE_RTC_API_KEY,
      sub: 'user-ses_Abc-1',
      video: { roomJoin: true, room: roomName, canPublish: true, canSubscribe: true, canPublishData: true },
      roomConfig: { name: roomName, agents: [{ agentName: 'billing-bot', metadata: JSON.stringify(ids) }] },
    });
    expect(Object.keys(claims.video ?? {}).sort()).toEqual(
      ['canPublish', 'canPublishData', 'canSubscribe', 'room', 'roomJoin'].sort(),
    );
    expect(JSON.parse(claims.metadata ?? '')).toEqual(ids);
    expect((claims.exp ?? 0) - (claims.nbf ?? 0)).toBe(900);
    expect(claims.nbf).toBeGreaterThanOrEqual(before);
    // Signed with another secret: refused.
    await expect(
      new TokenVerifier(RTC.VOICE_RTC_API_KEY, 'x'.repeat(40)).verify(body.data.token),
    ).rejects.toThrow();
  });

  it('uses the default TTL of 3600 s and dispatches no agent without agentName', async () => {
    const app = await makeApp({ ...RTC, VOICE_STT_ENGINE: '', VOICE_TTS_ENGINE: '' });
    const { projectId, key } = await newProject();
    const res = await token(app, key, { sessionId: 's2', projectId });
    expect(res.statusCode).toBe(200);
    const claims = await new TokenVerifier(RTC.VOICE_RTC_API_KEY, RTC.VOICE_RTC_API_SECRET).verify(
      res.json().data.token,
    );
    expect((claims.exp ?? 0) - (claims.nbf ?? 0)).toBe(3600);
    expect(claims.roomConfig?.agents ?? []).toEqual([]);
  });

  it('takes a user JWT whose tenant holds the project', async () => {
    const app = await makeApp();
    const { tenantId, projectId } = await newProject();
    const jwt = (projectIds: string[]) =>
      new SignJWT({ tenant_id: tenantId, project_ids: projectIds, scope: 'chat.write' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-1')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(JWT_SECRET));
    const ok = await app.inject({
      method: 'POST',
      url: '/api/v1/livekit/token',
      headers: { authorization: `Bearer ${await jwt([projectId])}` },
      payload: { sessionId: 's3', projectId },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.roomName).toBe(`${tenantId}-${projectId}-s3`);
    const noProject = await app.inject({
      method: 'POST',
      url: '/api/v1/livekit/token',
      headers: { authorization: `Bearer ${await jwt([])}` },
      payload: { sessionId: 's3', projectId },
    });
    expect(errorOf(noProject)).toEqual({ status: 403, code: 'TENANT_CONTEXT_REQUIRED' });
  });

  it("refuses a JWT naming another tenant's project, an unknown tenant, or none (403 TENANT_CONTEXT_REQUIRED)", async () => {
    const app = await makeApp();
    const victim = await newProject();
    const attacker = await newProject();
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ scope: 'chat.write', ...claims })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('user-1')
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(JWT_SECRET));
    const tokens = [
      // The attacker's own tenant, claiming the victim's project.
      await sign({ tenant_id: attacker.tenantId, project_ids: [victim.projectId] }),
      await sign({ tenant_id: 'ten_does_not_exist', project_ids: [victim.projectId] }),
      await sign({ project_ids: [victim.projectId] }),
    ];
    for (const jwt of tokens) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/livekit/token',
        headers: { authorization: `Bearer ${jwt}` },
        payload: { sessionId: 's4', projectId: victim.projectId },
      });
      expect(errorOf(res)).toEqual({ status: 403, code: 'TENANT_CONTEXT_REQUIRED' });
      expect(res.json().error.message).toBe('tenant context required');
    }
  });

  it.each([
    [{ projectId: 'p' }, 'INVALID_SESSION_ID'],
    [{ sessionId: 'a'.repeat(129), projectId: 'p' }, 'INVALID_SESSION_ID'],
    [{ sessionId: 'a b', projectId: 'p' }, 'INVALID_SESSION_ID'],
    [{ sessionId: 's' }, 'INVALID_PROJECT_ID'],
    [{ sessionId: 's', projectId: 'p'.repeat(129) }, 'INVALID_PROJECT_ID'],
    [{ sessionId: 's', projectId: 'p/q' }, 'INVALID_PROJECT_ID'],
    [{ sessionId: 's', projectId: 'p', agentName: 'a'.repeat(65) }, 'INVALID_AGENT_NAME'],
    [{ sessionId: 's', projectId: 'p', agentName: 'bad name' }, 'INVALID_AGENT_NAME'],
    [{ sessionId: 's', projectId: 'p', deploymentId: 'd'.repeat(129) }, 'INVALID_DEPLOYMENT_ID'],
    [{ sessionId: 's', projectId: 'p', deploymentId: 'd.1' }, 'INVALID_DEPLOYMENT_ID'],
  ])('answers 400 to %j with %s', async (body, code) => {
    const app = await makeApp();
    const { key } = await newProject();
    const res = await token(app, key, body);
    expect(errorOf(res)).toEqual({ status: 400, code });
    expect(res.json()).toEqual({ success: false, error: { code, message: expect.any(String) } });
  });

  it('answers 401 without a valid credential and 403 PERMISSION_REQUIRED without chat:write', async () => {
    const app = await makeApp();
    const missing = await app.inject({ method: 'POST', url: '/api/v1/livekit/token', payload: {} });
    expect(missing.statusCode).toBe(401);
    const wrong = await token(app, 'plat_notARealKey', { sessionId: 's', projectId: 'p' });
    expect(wrong.statusCode).toBe(401);
    const { projectId, key } = await newProject(['traces.read']);
    expect(errorOf(await token(app, key, { sessionId: 's', projectId }))).toEqual({
      status: 403,
      code: 'PERMISSION_REQUIRED',
    });
  });

  it('answers 403 TENANT_CONTEXT_REQUIRED for a project outside the caller’s tenant context', async () => {
    const app = await makeApp();
    const mine = await newProject();
    const other = await newProject();
    const res = await token(app, mine.key, { sessionId: 's', projectId: other.projectId });
    expect(errorOf(res)).toEqual({ status: 403, code: 'TENANT_CONTEXT_REQUIRED' });
    expect(res.json().error.message).toBe('tenant context required');
  });

  it('answers 503 VOICE_NOT_CONFIGURED while voice is disabled or the room service is not configured', async () => {
    const { projectId, key } = await newProject();
    for (const env of [{ ...RTC, VOICE_ENABLED: 'false' }, { ...RTC, VOICE_RTC_API_SECRET: '' }, {}]) {
      const res = await token(await makeApp(env), key, { sessionId: 's', projectId });
      expect(errorOf(res)).toEqual({ status: 503, code: 'VOICE_NOT_CONFIGURED' });
      // 5xx messages never leave the process (the error handler): the code tells the cause.
    }
  });

  it('answers 503 VOICE_CREDENTIALS_NOT_FOUND for an agent participant without speech services', async () => {
    const { projectId, key } = await newProject();
    const app = await makeApp({ ...RTC, VOICE_TTS_ENGINE: '' });
    const res = await token(app, key, { sessionId: 's', projectId, agentName: 'bot' });
    expect(errorOf(res)).toEqual({ status: 503, code: 'VOICE_CREDENTIALS_NOT_FOUND' });
    // A native audio model needs no speech engines.
    const realtime = await makeApp({
      ...RTC,
      VOICE_TTS_ENGINE: '',
      VOICE_MODE: 'realtime',
      VOICE_REALTIME_ENABLED: 'true',
    });
    expect((await token(realtime, key, { sessionId: 's', projectId, agentName: 'bot' })).statusCode).toBe(
      200,
    );
  });

  it('answers 429 VOICE_SESSION_LIMIT_REACHED beyond the rooms of all tenants together (global); a session’s own room is renewed', async () => {
    const limiter = createInProcessVoiceConcurrencyLimiter();
    const rooms = await makeApp({ ...RTC, VOICE_RTC_MAX_CONCURRENT_ROOMS: '2' }, limiter);
    const { projectId, key } = await newProject();
    for (const sessionId of ['r1', 'r2', 'r1']) {
      expect((await token(rooms, key, { sessionId, projectId })).statusCode).toBe(200);
    }
    const over = await token(rooms, key, { sessionId: 'r3', projectId });
    expect(errorOf(over)).toEqual({ status: 429, code: 'VOICE_SESSION_LIMIT_REACHED' });
    expect(over.json().error.message).toBe('maximum concurrent voice sessions reached');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // The limit is global (spec 000 §8): another tenant finds the rooms taken too.
    const other = await newProject();
    expect(errorOf(await token(rooms, other.key, { sessionId: 'r3', projectId: other.projectId }))).toEqual({
      status: 429,
      code: 'VOICE_SESSION_LIMIT_REACHED',
    });
    expect(await limiter.active(other.tenantId, 'rooms', 'global')).toBe(2);

    const calls = await makeApp({ ...RTC, VOICE_MAX_CONCURRENT_CALLS: '1' });
    expect((await token(calls, key, { sessionId: 'c1', projectId })).statusCode).toBe(200);
    expect(errorOf(await token(calls, key, { sessionId: 'c2', projectId }))).toEqual({
      status: 429,
      code: 'VOICE_SESSION_LIMIT_REACHED',
    });
  });

  it('with a per-tenant room limit too: a tenant at its own limit is refused while others still get rooms', async () => {
    const limiter = createInProcessVoiceConcurrencyLimiter();
    const app = await makeApp(
      { ...RTC, VOICE_RTC_MAX_CONCURRENT_ROOMS: '3', VOICE_RTC_MAX_CONCURRENT_ROOMS_PER_TENANT: '2' },
      limiter,
    );
    const [a, b] = [await newProject(), await newProject()];
    for (const sessionId of ['a1', 'a2']) {
      expect((await token(app, a.key, { sessionId, projectId: a.projectId })).statusCode).toBe(200);
    }
    expect(errorOf(await token(app, a.key, { sessionId: 'a3', projectId: a.projectId }))).toEqual({
      status: 429,
      code: 'VOICE_SESSION_LIMIT_REACHED',
    });
    expect((await token(app, b.key, { sessionId: 'b1', projectId: b.projectId })).statusCode).toBe(200);
    // Three rooms are open: the global limit now refuses everyone.
    expect(errorOf(await token(app, b.key, { sessionId: 'b2', projectId: b.projectId }))).toEqual({
      status: 429,
      code: 'VOICE_SESSION_LIMIT_REACHED',
    });
    expect([await limiter.active(a.tenantId, 'rooms'), await limiter.active(b.tenantId, 'rooms')]).toEqual([
      2, 1,
    ]);
  });

  it('lives under the configured vendor segment', async () => {
    const app = await makeApp({ ...RTC, VOICE_RTC_VENDOR: 'rooms' });
    const { projectId, key } = await newProject();
    expect((await token(app, key, { sessionId: 's', projectId }, '/api/v1/rooms/token')).statusCode).toBe(
      200,
    );
    expect((await token(app, key, { sessionId: 's', projectId })).statusCode).toBe(404);
  });
});

// Never mocked: a real Redis at REDIS_URL (connectTestRedis skips loudly without one, fails in CI).
const connected = await connectTestRedis('voice limits across two API processes');
afterAll(() => connected?.redis.disconnect());

describe.skipIf(connected === null)('two API processes sharing Redis', () => {
  it('never admit more rooms or calls than the limits, whichever process answers', async () => {
    const url = (connected as { url: string }).url;
    const prefix = `parley:test:voice-api:${process.pid}:${Date.now()}:`;
    const clients = [new Redis(url), new Redis(url)];
    try {
      const env = { ...RTC, VOICE_RTC_MAX_CONCURRENT_ROOMS: '5', VOICE_MAX_CONCURRENT_CALLS: '7' };
      const [a, b] = await Promise.all(
        clients.map((redis) => makeApp(env, createRedisVoiceConcurrencyLimiter({ redis, prefix }))),
      );
      const { tenantId, projectId, key } = await newProject();
      const race = (count: number, from: number) =>
        Promise.all(
          Array.from({ length: count }, (_, i) =>
            token(i % 2 === 0 ? (a as FastifyInstance) : (b as FastifyInstance), key, {
              sessionId: `race${from + i}`,
              projectId,
            }),
          ),
        );
      const first = await race(30, 0);
      expect(first.filter((r) => r.statusCode === 200)).toHaveLength(5);
      expect(first.filter((r) => r.statusCode === 429)).toHaveLength(25);
      expect(await clients[0]?.zcard(`${prefix}rooms`)).toBe(5);
      // Rooms free up: the calls limit (7) now binds.
      await clients[0]?.del(`${prefix}rooms`);
      const second = await race(30, 100);
      expect(second.filter((r) => r.statusCode === 200)).toHaveLength(2);
      expect(await clients[1]?.zcard(`${prefix}calls:${tenantId}`)).toBe(7);
      await clients[0]?.del(`${prefix}rooms`, `${prefix}calls:${tenantId}`);
    } finally {
      for (const redis of clients) redis.disconnect();
    }
  });
});
