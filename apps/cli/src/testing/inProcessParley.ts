import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiServer } from '@parley/api/server';
import { loadConfig, silentLogger } from '@parley/platform';
import { createTestDatabase } from '@parley/platform/testing';
import { projectionStatus } from '@parley/projection-runner';
import { createWorkerProcess, workerSettingsOf } from '@parley/worker/process';
import type { FastifyInstance } from 'fastify';
import { openSystem, type System } from '../system.js';
import { startRoomServiceStub } from './roomServiceStub.js';

/**
 * Parley as `parley start` composes it, in the test process: a fresh database of the test run,
 * the API built by createApiServer (every route the configuration enables: all of them with the defaults
 * below) driven by `app.inject`, and a worker (projections, channel and HTTP async jobs, recording
 * fetches) so that read models and queues exist as in production. For tests that must see the API
 * as a client does (the tenant-isolation property, the OpenAPI fuzz test): `/openapi.json` is the
 * document of exactly these routes.
 */
export interface InProcessParley {
  app: FastifyInstance;
  system: System;
  /** The secrets the defaults configured, for tests that mint their own tokens. */
  secrets: { jwt: string; sdkToken: string; credentialsKey: string };
  /**
   * Resolves when every projection has applied the whole log as it is now (throws after
   * `timeoutMs`). PostgreSQL log store only (what these tests run on).
   */
  projected(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startInProcessParley(env: Record<string, string> = {}): Promise<InProcessParley> {
  const db = await createTestDatabase();
  await db.close();
  const mediaDir = await mkdtemp(join(tmpdir(), 'parley-inprocess-media-'));
  // Room tokens create their rooms through the room service.
  const rooms = await startRoomServiceStub();
  const secrets = {
    jwt: randomBytes(24).toString('base64url'),
    sdkToken: randomBytes(24).toString('base64url'),
    credentialsKey: randomBytes(32).toString('base64'),
  };
  const config = loadConfig({
    DATABASE_URL: db.url,
    LOG_LEVEL: 'silent',
    JWT_SECRET: secrets.jwt,
    SDK_TOKEN_SECRET: secrets.sdkToken,
    CHANNEL_CREDENTIALS_KEY: secrets.credentialsKey,
    PUBLIC_BASE_URL: 'https://parley.test',
    MEDIA_DIR: mediaDir,
    // The tests send many requests per second; a 429 must never stand in for the answer under test.
    RATE_LIMIT_PER_SECOND: '1000000',
    CHAT_SESSION_MESSAGES_PER_MINUTE: '100000',
    CHAT_MAX_CONCURRENT_SESSIONS: '100000',
    // Callback URLs on this machine are allowed (nothing listens there: deliveries just retry).
    HTTP_ASYNC_CALLBACK_ALLOWLIST: '127.0.0.1',
    VOICE_ENABLED: 'true',
    VOICE_STT_ENGINE: 'pocketsphinx',
    VOICE_TTS_ENGINE: 'espeak-ng',
    VOICE_RTC_URL: rooms.url,
    VOICE_RTC_API_KEY: 'APIinprocess',
    VOICE_RTC_API_SECRET: randomBytes(24).toString('base64url'),
    VOICE_TELEPHONY_ACCOUNT_SID: 'AC_inprocess',
    VOICE_TELEPHONY_API_KEY_SID: 'SK_inprocess',
    VOICE_TELEPHONY_API_KEY_SECRET: randomBytes(24).toString('base64url'),
    ...env,
  });
  const logger = silentLogger();
  const system = await openSystem(config, logger, { database: 'external', migrate: true, poolMax: 20 });
  // The worker as `parley start` composes it, without the session lifecycle sweep (tests that need
  // it start their own) and polling the log more often.
  const worker = createWorkerProcess(
    system,
    { ...workerSettingsOf(config), sessions: undefined },
    { pollIntervalMs: 50 },
  );
  await worker.start();
  const api = await createApiServer(system);

  async function projected(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    // Readers (and their lag counts) see only events of transactions older than every running one
    // (docs/log.md): first wait until everything appended so far is visible to them, which another
    // test's long transaction on a shared cluster can delay.
    const { rows } = await system.pool.query<{ head: string | null }>(
      'select max(position) as head from events',
    );
    const head = rows[0]?.head ?? null;
    while (head !== null) {
      const pending = await system.pool.query<{ n: number }>(
        `select count(*)::int as n from events
         where position <= $1 and transaction_id >= pg_snapshot_xmin(pg_current_snapshot())`,
        [head],
      );
      if (pending.rows[0]?.n === 0) break;
      if (Date.now() > deadline) throw new Error('the log did not settle');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (;;) {
      const statuses = await projectionStatus(system.pool, system.store, system.projections);
      const behind = statuses.filter(
        (s) => s.generations.find((g) => g.status === 'live')?.eventsBehind !== 0,
      );
      if (behind.length === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`projections did not catch up: ${behind.map((s) => s.name).join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  return {
    app: api.app,
    system,
    secrets,
    projected,
    async close() {
      await api.close();
      await worker.stop();
      await system.close();
      await rooms.close();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}
