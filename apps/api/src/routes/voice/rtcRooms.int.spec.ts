import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { createInProcessRateLimiter } from '@parley/http';
import { loadConfig, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createInProcessVoiceConcurrencyLimiter, voiceSettingsOf } from '@parley/voice';
import { type RoomServiceStandIn, startRoomServiceStandIn } from '@parley/voice/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

const KEYS = { apiKey: 'APIroomsTest', apiSecret: 'rooms-secret-of-at-least-32-characters!' };

let db: TestDatabase;
let auth: AuthStore;
let rooms: RoomServiceStandIn;
const apps: FastifyInstance[] = [];
let n = 0;

beforeAll(async () => {
  rooms = await startRoomServiceStandIn(KEYS);
  db = await createTestDatabase([authMigrations]);
  auth = createAuthStore(db.pool);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await db.close();
  await rooms.close();
});
beforeEach(() => {
  rooms.calls.length = 0;
  rooms.failWith(null);
});

async function newProject() {
  n += 1;
  const tenant = await auth.createTenant({ name: `rooms tenant ${n}` });
  const project = await auth.createProject({ tenantId: tenant.id, slug: `rooms-${n}` });
  const { key } = await auth.createApiKey({ projectId: project.id, name: 'rooms', scopes: ['chat.write'] });
  return { tenantId: tenant.id, projectId: project.id, key };
}

async function makeApp(url: string) {
  const limiter = createInProcessVoiceConcurrencyLimiter();
  const env = {
    VOICE_ENABLED: 'true',
    VOICE_RTC_URL: url,
    VOICE_RTC_API_KEY: KEYS.apiKey,
    VOICE_RTC_API_SECRET: KEYS.apiSecret,
    VOICE_STT_ENGINE: 'pocketsphinx',
    VOICE_TTS_ENGINE: 'espeak-ng',
  };
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    rtcVoice: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      settings: voiceSettingsOf(loadConfig(env)),
      limiter,
    },
  });
  apps.push(app);
  return { app, limiter };
}

const token = (app: FastifyInstance, key: string, body: object) =>
  app.inject({ method: 'POST', url: '/api/v1/livekit/token', headers: { 'x-api-key': key }, payload: body });

describe('POST /api/v1/livekit/token with a room service', () => {
  it('creates the tenant-scoped room and dispatches the agent once, through the Twirp API', async () => {
    const { app } = await makeApp(rooms.url.replace(/^http/, 'ws'));
    const { tenantId, projectId, key } = await newProject();
    const body = { sessionId: 'call-1', projectId, agentName: 'billing-bot', deploymentId: 'dep_1' };
    const res = await token(app, key, body);
    expect(res.statusCode).toBe(200);
    const roomName = `${tenantId}-${projectId}-call-1`;
    expect(res.json().data.roomName).toBe(roomName);
    const metadata = JSON.stringify({ tenantId, ...body });
    expect(rooms.calls).toEqual([
      {
        method: 'livekit.RoomService/CreateRoom',
        body: { name: roomName, emptyTimeout: 300, metadata },
        grant: { roomCreate: true },
      },
      {
        method: 'livekit.AgentDispatchService/ListDispatch',
        body: { room: roomName },
        grant: { roomAdmin: true, room: roomName },
      },
      {
        method: 'livekit.AgentDispatchService/CreateDispatch',
        body: { room: roomName, agentName: 'billing-bot', metadata },
        grant: { roomAdmin: true, room: roomName },
      },
    ]);
    // A second token for the same session: the room is asked for again (kept), the agent not dispatched twice.
    rooms.calls.length = 0;
    expect((await token(app, key, body)).statusCode).toBe(200);
    expect(rooms.calls.map((c) => c.method)).toEqual([
      'livekit.RoomService/CreateRoom',
      'livekit.AgentDispatchService/ListDispatch',
    ]);
  });

  it('creates the room without a dispatch when no agentName is given', async () => {
    const { app } = await makeApp(rooms.url);
    const { tenantId, projectId, key } = await newProject();
    expect((await token(app, key, { sessionId: 's1', projectId })).statusCode).toBe(200);
    expect(rooms.calls.map((c) => [c.method, c.body.name])).toEqual([
      ['livekit.RoomService/CreateRoom', `${tenantId}-${projectId}-s1`],
    ]);
  });

  it('answers 503 ROOM_SERVICE_UNAVAILABLE when the room service fails, and gives the room slot back', async () => {
    const { app, limiter } = await makeApp(rooms.url);
    const { tenantId, projectId, key } = await newProject();
    rooms.failWith(503);
    const res = await token(app, key, { sessionId: 's1', projectId, agentName: 'bot' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    // 503 messages are the platform's generic one (toErrorReply); the code says which dependency.
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'ROOM_SERVICE_UNAVAILABLE', message: 'Service unavailable' },
    });
    expect(await limiter.active(tenantId, 'rooms', 'global')).toBe(0);
    expect(await limiter.active(tenantId, 'calls')).toBe(0);
    // The dispatch failing is the same error.
    rooms.failWith(null);
    const { projectId: p2, key: k2 } = await newProject();
    await token(app, k2, { sessionId: 's2', projectId: p2 });
    rooms.failWith(500);
    const dispatch = await token(app, k2, { sessionId: 's3', projectId: p2, agentName: 'bot' });
    expect(dispatch.json().error.code).toBe('ROOM_SERVICE_UNAVAILABLE');
  });

  it('answers 503 ROOM_SERVICE_UNAVAILABLE when the room service cannot be reached', async () => {
    const closed = await startRoomServiceStandIn(KEYS);
    await closed.close();
    const { app } = await makeApp(closed.url);
    const { projectId, key } = await newProject();
    const res = await token(app, key, { sessionId: 's1', projectId });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('ROOM_SERVICE_UNAVAILABLE');
  });
});
