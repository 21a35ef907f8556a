import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '@parley/api';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import {
  createFilesystemMediaStorage,
  createInProcessMediaTokenStore,
  type MediaStorage,
} from '@parley/media';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  loadRecordingFile,
  loadSessionRecordings,
  recordingsProjection,
} from '@parley/projection-recordings';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { SESSION_RECORDING_STATUSES, UNAVAILABLE_REASONS } from '@parley/recordings';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoProject } from './demoProject.js';
import { demoRecordingPlan, seedDemoRecordings } from './demoRecordings.js';

/** The seeded recordings through the real projection and the real recordings API. */
let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let storage: MediaStorage;
let mediaDir: string;
let runner: ProjectionRunner;
let app: FastifyInstance;
let key: string;
let projectId: string;
let tenantId: string;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, authMigrations, projectionRunnerMigrations], {
    poolMax: 10,
  });
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  auth = createAuthStore(db.pool);
  const demo = await ensureDemoProject(auth, 'demo');
  projectId = demo.project.id;
  tenantId = demo.tenant.id;
  key = (await auth.createApiKey({ projectId, scopes: ['recordings.read'] })).key;
  mediaDir = await mkdtemp(path.join(tmpdir(), 'parley-seed-media-'));
  storage = createFilesystemMediaStorage(mediaDir);
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [recordingsProjection],
    batchSize: 500,
    pollIntervalMs: 20,
    idleCheckMs: 100,
    retryBackoff: { initialMs: 20, maxMs: 200 },
  });
  await runner.start();
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    recordings: {
      verify: (raw) => auth.verifyApiKey(raw),
      callRecordingEnabled: async (id) => (await auth.getTenant(id))?.features.callRecording === true,
      recordingSettings: async (id) => (await auth.getProject(id))?.settings.recording,
      loadSessionRecordings: (p, s, limit) => loadSessionRecordings(db.pool, p, s, limit),
      loadRecordingFile: (p, r, i) => loadRecordingFile(db.pool, p, r, i),
      storage,
      tokens: createInProcessMediaTokenStore(),
      append: (stream, events) => store.append(stream, events),
      mediaUrlTtlSeconds: 900,
      objectLimit: 32,
    },
  });
});
afterAll(async () => {
  await app?.close();
  await runner?.stop();
  await store?.close();
  await db?.close();
  if (mediaDir) await rm(mediaDir, { recursive: true, force: true });
});

async function caughtUp(): Promise<void> {
  const head = await store.head();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [status] = await projectionStatus(db.pool, store, [recordingsProjection]);
    const live = status?.generations.find((g) => g.status === 'live');
    if (head && live?.eventsBehind === 0) {
      const again = await store.head();
      if (again && comparePositions(again.position, head.position) >= 0) return;
    }
    if (Date.now() > deadline) throw new Error('the recordings projection did not catch up');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('parley seed: demo recordings', () => {
  it('give the demo tenant the call-recording feature', async () => {
    expect((await auth.getTenant(tenantId))?.features.callRecording).toBe(true);
  });

  it('show every status and every UnavailableReason through the API, with real WAV media', async () => {
    const plan = demoRecordingPlan({ projectId, seed: 42, now: Date.now() });
    const result = await seedDemoRecordings({ store, storage }, { tenantId, projectId }, plan);
    expect(result.files).toBeGreaterThanOrEqual(9);
    await caughtUp();

    const statuses = new Set<string>();
    const reasons = new Set<string>();
    let played = 0;
    for (const showcase of plan.showcases) {
      const res = await app.inject({
        method: 'GET',
        url: `/api/public/recordings/projects/${projectId}/sessions/${showcase.sessionId}/recordings?disposition=inline`,
        headers: { 'x-api-key': key },
      });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      const seen = new Set<string>();
      if (data.unavailableReason) seen.add(data.unavailableReason);
      for (const recording of data.recordings) {
        if (recording.unavailableReason) seen.add(recording.unavailableReason);
        for (const file of recording.files) {
          if (file.unavailableReason) seen.add(file.unavailableReason);
          if (file.urlKind === 'proxied' && played < 3) {
            const media = await app.inject({
              method: 'GET',
              url: file.url,
              headers: { range: 'bytes=0-43' },
            });
            expect(media.statusCode).toBe(206);
            expect(media.rawPayload.toString('ascii', 0, 4)).toBe('RIFF');
            expect(media.rawPayload.toString('ascii', 8, 12)).toBe('WAVE');
            played++;
          }
        }
      }
      expect({ shows: showcase.shows, status: data.status, reasons: [...seen].sort() }).toEqual({
        shows: showcase.shows,
        status: showcase.status,
        reasons: [...showcase.reasons].sort(),
      });
      statuses.add(data.status);
      for (const r of seen) reasons.add(r);
    }
    expect([...statuses].sort()).toEqual([...SESSION_RECORDING_STATUSES].sort());
    expect([...reasons].sort()).toEqual([...UNAVAILABLE_REASONS].sort());
    expect(played).toBe(3);
  }, 60_000);

  it('append nothing new when the same seed runs again', async () => {
    const plan = demoRecordingPlan({ projectId, seed: 42, now: Date.now() - 5_000 });
    // The committed head: the settled one can lag behind the previous test's appends while a
    // transaction elsewhere on the cluster is open, and catch up between the two reads.
    const before = await store.head({ committed: true });
    await seedDemoRecordings({ store, storage }, { tenantId, projectId }, plan);
    const after = await store.head({ committed: true });
    expect(after?.position).toEqual(before?.position);
  });
});
