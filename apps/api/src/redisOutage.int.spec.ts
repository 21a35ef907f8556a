import { randomUUID } from 'node:crypto';
import { expandScopes } from '@parley/auth';
import { createInProcessRateLimiter, createJwtVerifier, sessionLimitsFromConfig } from '@parley/http';
import { createRedisMediaTokenStore } from '@parley/media';
import { createRedisClient, loadConfig, silentLogger } from '@parley/platform';
import {
  canStartPrivate,
  type PrivateServer,
  startPrivateRedis,
} from '@parley/platform/testing/privateServer';
import { voiceLimiterFromConfig, voiceSettingsOf } from '@parley/voice';
import { startRoomServiceStandIn } from '@parley/voice/testing';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { createSessionGate } from './routes/chat/sessionGate.js';
import {
  createRecordingsFixture,
  type RecordingsFixture,
  serverFile,
  sessionEvents,
} from './testing/recordingsFixture.js';

// What each Redis-backed feature does while Redis is down (docs/reliability.md), against a private
// Redis the test stops: never the machine's shared one.
let redis: PrivateServer;
let f: RecordingsFixture;
const closers: Array<() => Promise<unknown>> = [];
const available = canStartPrivate('redis', 'the Redis-down policy');
beforeAll(async () => {
  if (!available) return;
  redis = await startPrivateRedis();
  f = await createRecordingsFixture();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => {});
  await f?.close();
  await redis?.destroy();
});

const log = silentLogger() as unknown as FastifyBaseLogger;

/** Retries `attempt` until it holds (a client reconnecting after Redis came back); the time it took. */
async function within(ms: number, attempt: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await attempt().catch(() => false))) {
    if (Date.now() - started > ms) throw new Error(`not back within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - started;
}

const unavailable = (res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) => ({
  status: res.statusCode,
  retryAfter: res.headers['retry-after'],
  body: res.json(),
});
const SERVICE_UNAVAILABLE = {
  status: 503,
  retryAfter: '2',
  body: { success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' } },
};

describe.skipIf(!available)('media tokens (fail closed)', () => {
  let app: FastifyInstance;
  let sessionId: string;
  beforeAll(async () => {
    const client = createRedisClient(redis.url, { purpose: 'media tokens', commandTimeoutMs: 1_000 });
    closers.push(async () => client.disconnect());
    app = await f.makeApp({ tokens: createRedisMediaTokenStore(client) });
    closers.push(() => app.close());
    sessionId = `sess-${randomUUID()}`;
    const recordingId = `rec-${randomUUID()}`;
    const e = sessionEvents(f.projectId, sessionId);
    const key = await f.putMedia(recordingId, 0, Buffer.from('caller audio'));
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.completed(recordingId, [serverFile(0, 'caller')]),
      e.stored(recordingId, 0, key, 12),
      e.ended(),
    ]);
  });

  const firstFile = async () => {
    const res = await app.inject({
      url: `/api/public/recordings/projects/${f.projectId}/sessions/${sessionId}/recordings`,
      headers: { 'x-api-key': f.keys.recordings },
    });
    expect(res.statusCode).toBe(200);
    return res.json().data.recordings[0].files[0] as Record<string, unknown>;
  };
  const media = (url: string) => app.inject({ url });

  it('issues no URL (url_signing_failed, retryable) and serves no media (503) until Redis is back', async () => {
    await within(5_000, async () => (await firstFile()).urlKind === 'proxied');
    const issued = await firstFile();
    expect((await media(issued.url as string)).statusCode).toBe(200);

    await redis.stop();
    try {
      // A token that cannot be checked never opens media: 503 with Retry-After, not a 404 or a 500.
      expect(unavailable(await media(issued.url as string))).toEqual(SERVICE_UNAVAILABLE);
      expect(await firstFile()).toMatchObject({
        availability: 'unavailable',
        url: null,
        unavailableReason: 'url_signing_failed',
        retryable: true,
      });
    } finally {
      await redis.start();
    }
    // Back within moments; a fresh listing issues a URL that serves the media again.
    const took = await within(5_000, async () => (await firstFile()).urlKind === 'proxied');
    expect(took).toBeLessThan(3_000);
    expect((await media((await firstFile()).url as string)).statusCode).toBe(200);
  });
});

describe.skipIf(!available)('real-time voice rooms (fail closed)', () => {
  const RTC = {
    VOICE_ENABLED: 'true',
    VOICE_RTC_URL: 'wss://rooms.example.com',
    VOICE_RTC_API_KEY: 'APIvoiceTest',
    VOICE_RTC_API_SECRET: 'rtc-secret-of-at-least-32-characters!!',
  };

  it('answers a room token 503 SERVICE_UNAVAILABLE with Retry-After rather than admit past the limit', async () => {
    // The token route creates the room through the room service: a local one stands in.
    const rooms = await startRoomServiceStandIn({
      apiKey: RTC.VOICE_RTC_API_KEY,
      apiSecret: RTC.VOICE_RTC_API_SECRET,
    });
    closers.push(() => rooms.close());
    RTC.VOICE_RTC_URL = rooms.url;
    const limits = voiceLimiterFromConfig({ REDIS_URL: redis.url });
    closers.push(() => limits.close());
    const app = await buildApp({
      logger: silentLogger(),
      readiness: { database: async () => true, pendingMigrations: async () => [] },
      rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
      rtcVoice: {
        verifyApiKey: (key) => f.auth.verifyApiKey(key),
        verifyJwt: createJwtVerifier({
          secret: 'x'.repeat(40),
          expandScopes,
          tenantProjects: (t, p) => f.auth.tenantProjects(t, p),
        }),
        settings: voiceSettingsOf(loadConfig(RTC)),
        limiter: limits.limiter,
      },
    });
    closers.push(() => app.close());
    const tenant = await f.auth.createTenant({ name: 'voice outage' });
    const project = await f.auth.createProject({ tenantId: tenant.id, slug: 'voice-outage' });
    const { key } = await f.auth.createApiKey({ projectId: project.id, scopes: ['chat.write'] });
    const token = () =>
      app.inject({
        method: 'POST',
        url: '/api/v1/livekit/token',
        headers: { 'x-api-key': key },
        payload: { sessionId: `s-${randomUUID()}`, projectId: project.id },
      });

    await within(5_000, async () => (await token()).statusCode === 200);
    await redis.stop();
    try {
      expect(unavailable(await token())).toEqual(SERVICE_UNAVAILABLE);
    } finally {
      await redis.start();
    }
    expect(await within(5_000, async () => (await token()).statusCode === 200)).toBeLessThan(3_000);
  });
});

describe.skipIf(!available)('conversation limits', () => {
  it('limits the session message rate per process (fail open to a local limit), admits new sessions', async () => {
    const configured = sessionLimitsFromConfig({
      REDIS_URL: redis.url,
      CHAT_SESSION_MESSAGES_PER_MINUTE: 2,
      CHAT_MAX_CONCURRENT_SESSIONS: 1,
      CHAT_ACTIVE_SESSION_WINDOW_SECONDS: 60,
    });
    closers.push(() => configured.close());
    const gate = createSessionGate(configured.limits);
    const tenant = `t-${randomUUID()}`;

    await redis.stop();
    try {
      const session = `s-${randomUUID()}`;
      await gate.admit(log, tenant, session);
      await gate.admit(log, tenant, session);
      await expect(gate.admit(log, tenant, session)).rejects.toMatchObject({ status: 429 });
      // Concurrent sessions cannot be counted across replicas: new conversations are admitted.
      await gate.admit(log, tenant, undefined);
      await gate.admit(log, tenant, undefined);
    } finally {
      await redis.start();
    }
  });
});
