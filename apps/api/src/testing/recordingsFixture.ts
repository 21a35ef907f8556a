import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AuthStore, authMigrations, createAuthStore, type ProjectSettings } from '@parley/auth';
import {
  type EventDataInput,
  type EventType,
  recordingStream,
  sessionStream,
  toAppend,
  upcast,
} from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  START,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import {
  createFilesystemMediaStorage,
  createInProcessMediaTokenStore,
  type MediaStorage,
  type MediaTokenStore,
  recordingMediaKey,
} from '@parley/media';
import { type Logger, silentLogger } from '@parley/platform';
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
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import type { RecordingsRouteOptions } from '../routes/recordings/options.js';

/**
 * A real database and log, the recordings projection running, filesystem media storage in a
 * temporary directory, and an app with the recordings routes wired as apps/api/src/server.ts
 * wires them. Tests isolate by fresh session and recording ids.
 */
export interface RecordingsFixture {
  db: TestDatabase;
  store: PostgresEventStore;
  auth: AuthStore;
  storage: MediaStorage;
  tokens: MediaTokenStore;
  app: FastifyInstance;
  tenantId: string;
  projectId: string;
  keys: {
    recordings: string;
    analyticsOnly: string;
    otherProject: string;
    noFeature: string;
  };
  noFeatureProjectId: string;
  otherProjectId: string;
  /** The options the app was built with, for tests that build a variant. */
  options: RecordingsRouteOptions;
  makeApp(
    overrides?: Partial<RecordingsRouteOptions>,
    extra?: { defaultLimit?: number; logger?: Logger },
  ): Promise<FastifyInstance>;
  /** Appends the events (each to its stream) and waits until the projection has them (none: the whole log). */
  appendAndProject(
    events: ReadonlyArray<{ stream: string; type: EventType; data: Record<string, unknown> }>,
  ): Promise<void>;
  /** Writes media for a file and returns its storage key. */
  putMedia(recordingId: string, objectIndex: number, body: Buffer, projectId?: string): Promise<string>;
  close(): Promise<void>;
}

export async function createRecordingsFixture(settings?: ProjectSettings): Promise<RecordingsFixture> {
  const db = await createTestDatabase([eventStoreMigrations, authMigrations, projectionRunnerMigrations], {
    poolMax: 20,
  });
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme', features: { callRecording: true } });
  const project = await auth.createProject({
    tenantId: tenant.id,
    slug: 'support',
    ...(settings && { settings }),
  });
  const other = await auth.createProject({ tenantId: tenant.id, slug: 'sales' });
  const plain = await auth.createTenant({ name: 'No recording' });
  const plainProject = await auth.createProject({ tenantId: plain.id, slug: 'support' });
  const key = async (projectId: string, scope: string) =>
    (await auth.createApiKey({ projectId, scopes: [scope], name: scope })).key;
  const keys = {
    recordings: await key(project.id, 'recordings.read'),
    analyticsOnly: await key(project.id, 'analytics.read'),
    otherProject: await key(other.id, 'recordings.read'),
    noFeature: await key(plainProject.id, 'recordings.read'),
  };
  const mediaDir = await mkdtemp(path.join(tmpdir(), 'parley-recordings-api-'));
  const storage = createFilesystemMediaStorage(mediaDir);
  const tokens = createInProcessMediaTokenStore();
  const runner: ProjectionRunner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [recordingsProjection],
    batchSize: 500,
    pollIntervalMs: 20,
    idleCheckMs: 100,
    retryBackoff: { initialMs: 20, maxMs: 200 },
  });
  await runner.start();

  const options: RecordingsRouteOptions = {
    verify: (raw) => auth.verifyApiKey(raw),
    callRecordingEnabled: async (tenantId) =>
      (await auth.getTenant(tenantId))?.features.callRecording === true,
    recordingSettings: async (projectId) => {
      const found = await auth.getProject(projectId);
      if (found === null) throw new Error('project not found');
      return found.settings.recording;
    },
    loadSessionRecordings: (projectId, sessionId, limit) =>
      loadSessionRecordings(db.pool, projectId, sessionId, limit),
    loadRecordingFile: (projectId, recordingId, objectIndex) =>
      loadRecordingFile(db.pool, projectId, recordingId, objectIndex),
    storage,
    tokens,
    append: (stream, events) => store.append(stream, events),
    mediaUrlTtlSeconds: 900,
    objectLimit: 32,
  };
  const makeApp: RecordingsFixture['makeApp'] = (overrides = {}, extra = {}) =>
    buildApp({
      logger: extra.logger ?? silentLogger(),
      readiness: { database: async () => true, pendingMigrations: async () => [] },
      rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: extra.defaultLimit ?? 10_000 },
      recordings: { ...options, ...overrides },
    });
  const app = await makeApp();

  let last: Position = START;
  async function caughtUp(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const head = await store.head();
      if (head && comparePositions(head.position, last) >= 0) {
        const [status] = await projectionStatus(db.pool, store, [recordingsProjection]);
        if (status?.generations.find((g) => g.status === 'live')?.eventsBehind === 0) return;
        if (status?.state === 'failed') throw new Error(`projection failed: ${JSON.stringify(status)}`);
      }
      if (Date.now() > deadline) throw new Error('the recordings projection did not catch up');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  return {
    db,
    store,
    auth,
    storage,
    tokens,
    app,
    tenantId: tenant.id,
    projectId: project.id,
    otherProjectId: other.id,
    noFeatureProjectId: plainProject.id,
    keys,
    options,
    makeApp,
    async appendAndProject(events) {
      // Nothing to append: wait for whatever is in the log now (e.g. what a route appended).
      const head = events.length === 0 ? await store.head() : null;
      if (head && comparePositions(head.position, last) > 0) last = head.position;
      for (const event of events) {
        const appended = toAppend(
          event.type,
          event.data as EventDataInput<typeof event.type>,
          { tenantId: tenant.id },
          randomUUID(),
        );
        const result = await store.append(event.stream, [appended]);
        if (comparePositions(result.position, last) > 0) last = result.position;
      }
      await caughtUp();
    },
    async putMedia(recordingId, objectIndex, body, projectId = project.id) {
      const key = recordingMediaKey({ projectId, recordingId, objectIndex, extension: 'wav' });
      await storage.put(key, body, { contentType: 'audio/wav' });
      return key;
    },
    async close() {
      await app.close();
      await runner.stop();
      await tokens.close();
      await store.close();
      await db.close();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}

/** Event builders for one session and its recordings, at fixed times. */
export function sessionEvents(projectId: string, sessionId: string) {
  const session = sessionStream(sessionId);
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 8, minute)).toISOString();
  const scope = (recordingId: string) => ({ recordingId, sessionId, projectId });
  return {
    started: (extra: Record<string, unknown> = {}) => ({
      stream: session,
      type: 'SessionStarted' as const,
      data: {
        sessionId,
        projectId,
        agentName: 'support',
        channel: 'voice_pipeline',
        environment: 'production',
        traceDimensions: {},
        startedAt: at(0),
        ...extra,
      },
    }),
    ended: () => ({
      stream: session,
      type: 'SessionEnded' as const,
      data: { sessionId, projectId, status: 'completed', containmentType: 'contained', endedAt: at(10) },
    }),
    recordingStarted: (recordingId: string, extra: Record<string, unknown> = {}) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingStarted' as const,
      data: { ...scope(recordingId), callId: `call-${recordingId}`, startedAt: at(1), ...extra },
    }),
    completed: (recordingId: string, files: Array<Record<string, unknown>>, durationSeconds = 540) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingCompleted' as const,
      data: {
        ...scope(recordingId),
        callId: `call-${recordingId}`,
        durationSeconds,
        files,
        completedAt: at(10),
      },
    }),
    stored: (
      recordingId: string,
      objectIndex: number,
      storageKey: string,
      bytes: number,
      extra: Record<string, unknown> = {},
    ) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingFileStored' as const,
      data: {
        ...scope(recordingId),
        callId: `call-${recordingId}`,
        objectIndex,
        bytes,
        storageKey,
        storedAt: at(11),
        ...extra,
      },
    }),
    failed: (recordingId: string, reason: string, objectIndex?: number) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingFailed' as const,
      data: {
        ...scope(recordingId),
        reason,
        ...(objectIndex === undefined ? {} : { objectIndex }),
        failedAt: at(12),
      },
    }),
    deleted: (recordingId: string) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingDeleted' as const,
      data: { ...scope(recordingId), principal: { kind: 'user', id: 'user-1' }, deletedAt: at(30) },
    }),
    retentionExpired: (recordingId: string) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingRetentionExpired' as const,
      data: { ...scope(recordingId), expiredAt: at(40) },
    }),
    legalHold: (recordingId: string) => ({
      stream: recordingStream(recordingId),
      type: 'RecordingLegalHoldPlaced' as const,
      data: {
        ...scope(recordingId),
        holdId: `hold-${recordingId}`,
        principal: { kind: 'user', id: 'legal-1' },
        placedAt: at(20),
      },
    }),
    at,
  };
}

/** A recording_server file spec of RecordingCompleted. */
export const serverFile = (
  objectIndex: number,
  channel: 'caller' | 'agent' | 'mixed',
  extra: Record<string, unknown> = {},
) => ({
  objectIndex,
  fileName: `call-${channel}.wav`,
  channel,
  recordingType: 'audio',
  contentType: 'audio/wav',
  recordingStartTime: '2026-11-21T08:01:00.000Z',
  recordingEndTime: '2026-11-21T08:10:00.000Z',
  source: { kind: 'recording_server', url: `https://recordings.example.com/r/${channel}` },
  ...extra,
});
