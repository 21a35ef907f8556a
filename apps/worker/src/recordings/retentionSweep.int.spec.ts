import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EventType, recordingStream, toAppend, upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
} from '@parley/eventstore';
import { createFilesystemMediaStorage, type MediaStorage, recordingMediaKey } from '@parley/media';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { recordingsProjection } from '@parley/projection-recordings';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetentionSweep } from './retentionSweep.js';
import { wav } from './testing/recordingServer.js';

let db: TestDatabase;
let store: PostgresEventStore;
let runner: ProjectionRunner;
let media: MediaStorage;
let mediaDir: string;
const projectId = 'proj_retention';
const NOW = new Date('2026-11-21T12:00:00.000Z');
const principal = { kind: 'user' as const, id: 'usr_1' };

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [recordingsProjection],
    pollIntervalMs: 20,
  });
  await runner.start();
  mediaDir = await mkdtemp(join(tmpdir(), 'parley-retention-'));
  media = createFilesystemMediaStorage(mediaDir);
});
afterAll(async () => {
  await runner.stop();
  await store.close();
  await db.close();
  await rm(mediaDir, { recursive: true, force: true });
});

/**
 * The newest event's position, committed but perhaps not yet shown to readers (they wait for older
 * transactions of the whole cluster, docs/log.md): what the projection must reach. store.head() can
 * trail it while other spec files' transactions are open.
 */
async function newestCommitted(): Promise<Position | undefined> {
  const { rows } = await db.pool.query<{ commit: string; prepare: string }>(
    `select transaction_id::text as commit, position::text as prepare from events
      order by transaction_id desc, position desc limit 1`,
  );
  const row = rows[0];
  return row ? { commit: BigInt(row.commit), prepare: BigInt(row.prepare) } : undefined;
}

async function caughtUp(): Promise<void> {
  const newest = await newestCommitted();
  const head = newest === undefined ? undefined : { position: newest };
  const deadline = Date.now() + 20_000;
  while (head && Date.now() < deadline) {
    const [status] = await projectionStatus(db.pool, store, [recordingsProjection]);
    const live = status?.generations.find((g) => g.generation === status.liveGeneration);
    if (live && comparePositions(live.checkpoint, head.position) >= 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (head) throw new Error('projection did not catch up');
}

async function append(recordingId: string, type: EventType, data: Record<string, unknown>) {
  await store.append(recordingStream(recordingId), [
    toAppend(type, { recordingId, sessionId: 'ses_1', projectId, ...data } as never),
  ]);
}

/** A completed recording with two stored files (real objects in media storage). */
async function storedRecording(recordingId: string, retentionExpiresAt?: string): Promise<string[]> {
  await append(recordingId, 'RecordingStarted', {
    callId: 'CA1',
    startedAt: '2026-10-01T10:00:00.000Z',
    ...(retentionExpiresAt ? { retentionExpiresAt } : {}),
  });
  await append(recordingId, 'RecordingCompleted', {
    callId: 'CA1',
    files: [0, 1].map((objectIndex) => ({
      objectIndex,
      source: { kind: 'recording_server', url: `https://r.example/${objectIndex}` },
    })),
    completedAt: '2026-10-01T10:05:00.000Z',
  });
  const keys: string[] = [];
  for (const objectIndex of [0, 1]) {
    const storageKey = recordingMediaKey({ projectId, recordingId, objectIndex, extension: 'wav' });
    const info = await media.put(storageKey, wav(100), { contentType: 'audio/wav' });
    await append(recordingId, 'RecordingFileStored', {
      callId: 'CA1',
      objectIndex,
      bytes: info.bytes,
      storageKey,
      storedAt: '2026-10-01T10:06:00.000Z',
    });
    keys.push(storageKey);
  }
  return keys;
}

async function types(recordingId: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of store.readStream(recordingStream(recordingId))) out.push(e.type);
  return out;
}

const sweep = () =>
  runRetentionSweep({ pool: db.pool, store, media, logger: silentLogger(), now: () => NOW });

describe('retention sweep', () => {
  it('expires due recordings, deletes their media once, and never touches recordings under legal hold', async () => {
    const due = await storedRecording('RE_due', '2026-11-20T00:00:00.000Z');
    const held = await storedRecording('RE_held', '2026-11-20T00:00:00.000Z');
    await append('RE_held', 'RecordingLegalHoldPlaced', {
      holdId: 'hold_1',
      principal,
      placedAt: '2026-11-01T00:00:00.000Z',
    });
    const future = await storedRecording('RE_future', '2027-01-01T00:00:00.000Z');
    const forever = await storedRecording('RE_forever');
    const deleted = await storedRecording('RE_deleted', '2027-01-01T00:00:00.000Z');
    await append('RE_deleted', 'RecordingDeleted', { principal, deletedAt: '2026-11-21T11:00:00.000Z' });
    await caughtUp();

    expect(await sweep()).toEqual({ expired: 1, mediaDeleted: 1 });
    // Sweeps racing the projection (it may not have seen the previous sweep's facts yet) append
    // nothing twice; once it has caught up, a sweep finds nothing left to do.
    await Promise.all([sweep(), sweep()]);
    await caughtUp();
    await sweep();
    await caughtUp();
    expect(await sweep()).toEqual({ expired: 0, mediaDeleted: 0 });

    expect(await types('RE_due')).toEqual([
      'RecordingStarted',
      'RecordingCompleted',
      'RecordingFileStored',
      'RecordingFileStored',
      'RecordingRetentionExpired',
      'RecordingMediaDeleted',
    ]);
    expect((await types('RE_deleted')).slice(-2)).toEqual(['RecordingDeleted', 'RecordingMediaDeleted']);
    for (const key of [...due, ...deleted]) expect(await media.head(key)).toBeNull();
    for (const key of [...held, ...future, ...forever]) expect(await media.head(key)).not.toBeNull();
    expect(await types('RE_held')).not.toContain('RecordingRetentionExpired');
    expect(await types('RE_future')).not.toContain('RecordingRetentionExpired');

    const mediaDeleted = [];
    for await (const e of store.readStream(recordingStream('RE_due')))
      if (e.type === 'RecordingMediaDeleted') mediaDeleted.push(e.data);
    expect(mediaDeleted).toEqual([
      expect.objectContaining({ objectIndexes: [0, 1], cause: 'retention_expired' }),
    ]);

    // Lifting the hold: the recording expires at the next sweep, its media at the one after.
    await append('RE_held', 'RecordingLegalHoldLifted', {
      holdId: 'hold_1',
      principal,
      liftedAt: '2026-11-21T11:30:00.000Z',
    });
    await caughtUp();
    expect((await sweep()).expired).toBe(1);
    await caughtUp();
    expect((await sweep()).mediaDeleted).toBe(1);
    for (const key of held) expect(await media.head(key)).toBeNull();
  });
});
