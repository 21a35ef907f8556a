import { randomUUID } from 'node:crypto';
import { recordingStream, sessionStream, toAppend } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import { deriveSessionRecordings } from '@parley/recordings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRecordingFile } from './loadRecordingFile.js';
import { loadSessionRecordings } from './loadSessionRecordings.js';
import { listRecordingsDueForRetention, listRecordingsWithMediaToDelete } from './retention.js';
import { createHarness, type Harness } from './spec/harness.js';
import { type EventInput, toAppends } from './spec/recordingEvents.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const principal = { kind: 'user' as const, id: 'usr_1' };

/** Appends a recording's events (each its own append, in the order given). */
async function recording(
  scope: { projectId: string; sessionId: string; recordingId: string },
  build: (s: typeof scope) => EventInput[],
): Promise<void> {
  for (const event of toAppends(build(scope))) await h.append(recordingStream(scope.recordingId), [event]);
}

const started = (
  s: { projectId: string; sessionId: string; recordingId: string },
  startedAt: string,
  retentionExpiresAt?: string,
): EventInput => ({
  type: 'RecordingStarted',
  data: {
    ...s,
    callId: `CA_${s.recordingId}`,
    startedAt,
    ...(retentionExpiresAt ? { retentionExpiresAt } : {}),
  },
});
const completed = (
  s: { projectId: string; sessionId: string; recordingId: string },
  indexes: number[],
): EventInput => ({
  type: 'RecordingCompleted',
  data: {
    ...s,
    callId: `CA_${s.recordingId}`,
    completedAt: '2024-11-21T09:19:47.200Z',
    files: indexes.map((objectIndex) => ({
      objectIndex,
      source: { kind: 'recording_server' as const, url: `https://r.example/${objectIndex}` },
    })),
  },
});
const stored = (
  s: { projectId: string; sessionId: string; recordingId: string },
  objectIndex: number,
): EventInput => ({
  type: 'RecordingFileStored',
  data: {
    ...s,
    callId: `CA_${s.recordingId}`,
    objectIndex,
    bytes: 1000 + objectIndex,
    contentType: 'audio/wav',
    storageKey: `projects/${s.projectId}/recordings/${s.recordingId}/${objectIndex}.wav`,
    storedAt: '2024-11-21T09:20:31.004Z',
  },
});

describe('loadSessionRecordings', () => {
  it('an unknown session: not known, nothing', async () => {
    expect(await loadSessionRecordings(h.db.pool, `proj_${randomUUID()}`, 'nope', 65)).toEqual({
      sessionKnown: false,
      sessionEnded: false,
      sessionRecordingEnabled: null,
      recordings: [],
    });
  });

  it('a session known by its own events: ended and its recording setting', async () => {
    const projectId = `proj_${randomUUID()}`;
    const sessionId = `sess_${randomUUID()}`;
    await h.append(sessionStream(sessionId), [
      toAppend('SessionStarted', {
        ...eventExamples.SessionStarted,
        projectId,
        sessionId,
        recordingEnabled: false,
      }),
    ]);
    await h.caughtUp();
    expect(await loadSessionRecordings(h.db.pool, projectId, sessionId, 65)).toEqual({
      sessionKnown: true,
      sessionEnded: false,
      sessionRecordingEnabled: false,
      recordings: [],
    });
    await h.append(sessionStream(sessionId), [
      toAppend('SessionEnded', { ...eventExamples.SessionEnded, projectId, sessionId }),
    ]);
    await h.caughtUp();
    expect(await loadSessionRecordings(h.db.pool, projectId, sessionId, 65)).toMatchObject({
      sessionKnown: true,
      sessionEnded: true,
    });
    // Another project's key never sees it.
    expect((await loadSessionRecordings(h.db.pool, `proj_${randomUUID()}`, sessionId, 65)).sessionKnown).toBe(
      false,
    );
  });

  it('recordings ordered by createdAt then recordingId, cut at the limit; a recording makes the session known', async () => {
    const projectId = `proj_${randomUUID()}`;
    const sessionId = `sess_${randomUUID()}`;
    const ids = ['rec_c', 'rec_a', 'rec_b'].map((r) => `${r}_${randomUUID()}`);
    const [c, a, b] = ids as [string, string, string];
    await recording({ projectId, sessionId, recordingId: c }, (s) => [
      started(s, '2024-11-21T09:00:00.000Z'),
    ]);
    await recording({ projectId, sessionId, recordingId: b }, (s) => [
      started(s, '2024-11-21T10:00:00.000Z'),
    ]);
    await recording({ projectId, sessionId, recordingId: a }, (s) => [
      started(s, '2024-11-21T10:00:00.000Z'),
    ]);
    await recording({ projectId, sessionId: 'other', recordingId: `rec_${randomUUID()}` }, (s) => [
      started(s, '2024-11-21T08:00:00.000Z'),
    ]);
    await h.caughtUp();
    const all = await loadSessionRecordings(h.db.pool, projectId, sessionId, 65);
    expect(all.sessionKnown).toBe(true);
    expect(all.recordings.map((r) => r.recordingId)).toEqual([c, a, b]);
    expect(all.recordings[0]).toEqual({
      recordingId: c,
      callId: `CA_${c}`,
      sessionId,
      projectId,
      createdAt: '2024-11-21T09:00:00.000Z',
      durationSeconds: null,
      immutable: false,
      retentionExpiresAt: null,
      phase: 'started',
      failureReason: null,
      files: [],
    });
    expect((await loadSessionRecordings(h.db.pool, projectId, sessionId, 2)).recordings).toHaveLength(2);
  });

  it('feeds deriveSessionRecordings: stored and pending files, the session ended', async () => {
    const projectId = `proj_${randomUUID()}`;
    const sessionId = `sess_${randomUUID()}`;
    const recordingId = `rec_${randomUUID()}`;
    await h.append(sessionStream(sessionId), [
      toAppend('SessionStarted', { ...eventExamples.SessionStarted, projectId, sessionId }),
      toAppend('SessionEnded', { ...eventExamples.SessionEnded, projectId, sessionId }),
    ]);
    await recording({ projectId, sessionId, recordingId }, (s) => [
      started(s, '2024-11-21T09:15:02.500Z'),
      completed(s, [0, 1]),
      stored(s, 0),
    ]);
    await h.caughtUp();
    const loaded = await loadSessionRecordings(h.db.pool, projectId, sessionId, 65);
    const data = deriveSessionRecordings({
      sessionId,
      projectId,
      context: {
        sessionEnded: loaded.sessionEnded,
        recordingEnabled: loaded.sessionRecordingEnabled ?? true,
      },
      recordings: loaded.recordings,
      issued: new Map([[`${recordingId}:0`, { url: '/api/x', urlKind: 'proxied' as const, expiresIn: 900 }]]),
    });
    expect(data.status).toBe('partial');
    expect(data.retryable).toBe(true);
    expect(data.recordings[0]?.files.map((f) => [f.availability, f.unavailableReason, f.bytes])).toEqual([
      ['available', null, 1000],
      ['media_in_progress', 'media_in_progress', 0],
    ]);
  });
});

describe('loadRecordingFile', () => {
  it('one file of the project’s recording, or null', async () => {
    const projectId = `proj_${randomUUID()}`;
    const recordingId = `rec_${randomUUID()}`;
    await recording({ projectId, sessionId: 's', recordingId }, (s) => [completed(s, [0, 1]), stored(s, 1)]);
    await h.caughtUp();
    const found = await loadRecordingFile(h.db.pool, projectId, recordingId, 1);
    expect(found?.record.recordingId).toBe(recordingId);
    expect(found?.file).toMatchObject({
      objectIndex: 1,
      bytes: 1001,
      contentType: 'audio/wav',
      state: { kind: 'stored', storageKey: `projects/${projectId}/recordings/${recordingId}/1.wav` },
    });
    expect(await loadRecordingFile(h.db.pool, projectId, recordingId, 2)).toBeNull();
    expect(await loadRecordingFile(h.db.pool, `proj_${randomUUID()}`, recordingId, 1)).toBeNull();
  });
});

describe('retention queries', () => {
  it('due for retention: expiry passed, not held, not already expired or deleted', async () => {
    const projectId = `proj_${randomUUID()}`;
    const rec = (name: string) => ({ projectId, sessionId: 's', recordingId: `${name}_${randomUUID()}` });
    const due = rec('due');
    const held = rec('held');
    const future = rec('future');
    const expired = rec('expired');
    const noPolicy = rec('nopolicy');
    const deleted = rec('deleted');
    const liftedHold = rec('lifted');
    const past = '2025-01-01T00:00:00.000Z';
    await recording(due, (s) => [started(s, '2024-11-21T09:00:00.000Z', past)]);
    await recording(held, (s) => [
      started(s, '2024-11-21T09:00:00.000Z', past),
      {
        type: 'RecordingLegalHoldPlaced',
        data: { ...s, holdId: 'h1', principal, placedAt: '2024-12-01T00:00:00.000Z' },
      },
    ]);
    await recording(liftedHold, (s) => [
      started(s, '2024-11-21T09:00:00.000Z', past),
      {
        type: 'RecordingLegalHoldPlaced',
        data: { ...s, holdId: 'h1', principal, placedAt: '2024-12-01T00:00:00.000Z' },
      },
      {
        type: 'RecordingLegalHoldLifted',
        data: { ...s, holdId: 'h1', principal, liftedAt: '2024-12-02T00:00:00.000Z' },
      },
    ]);
    await recording(future, (s) => [started(s, '2024-11-21T09:00:00.000Z', '2030-01-01T00:00:00.000Z')]);
    await recording(expired, (s) => [
      started(s, '2024-11-21T09:00:00.000Z', past),
      { type: 'RecordingRetentionExpired', data: { ...s, expiredAt: past } },
    ]);
    await recording(noPolicy, (s) => [started(s, '2024-11-21T09:00:00.000Z')]);
    await recording(deleted, (s) => [
      started(s, '2024-11-21T09:00:00.000Z', past),
      { type: 'RecordingDeleted', data: { ...s, principal, deletedAt: '2024-12-01T00:00:00.000Z' } },
    ]);
    await h.caughtUp();
    const now = new Date('2026-01-01T00:00:00.000Z');
    const ids = (await listRecordingsDueForRetention(h.db.pool, now, 1000))
      .filter((r) => r.projectId === projectId)
      .map((r) => r.recordingId)
      .sort();
    expect(ids).toEqual([due.recordingId, liftedHold.recordingId].sort());
    // Exactly at the expiry instant it is due; a moment before it is not.
    const atExpiry = await listRecordingsDueForRetention(h.db.pool, new Date(past), 1000);
    expect(atExpiry.some((r) => r.recordingId === due.recordingId)).toBe(true);
    const before = await listRecordingsDueForRetention(h.db.pool, new Date(Date.parse(past) - 1), 1000);
    expect(before.some((r) => r.recordingId === due.recordingId)).toBe(false);
    expect(await listRecordingsDueForRetention(h.db.pool, now, 1)).toHaveLength(1);
  });

  it('media to delete: gone recordings with stored objects not yet reported deleted', async () => {
    const projectId = `proj_${randomUUID()}`;
    const rec = (name: string) => ({ projectId, sessionId: 's', recordingId: `${name}_${randomUUID()}` });
    const expiredTwo = rec('expired');
    const deletedOne = rec('deleted');
    const done = rec('done');
    const alive = rec('alive');
    const nothingStored = rec('nothing');
    await recording(expiredTwo, (s) => [
      completed(s, [0, 1, 2]),
      stored(s, 0),
      stored(s, 2),
      { type: 'RecordingRetentionExpired', data: { ...s, expiredAt: '2025-11-21T09:15:02.500Z' } },
    ]);
    await recording(deletedOne, (s) => [
      completed(s, [0, 1]),
      stored(s, 0),
      stored(s, 1),
      { type: 'RecordingDeleted', data: { ...s, principal, deletedAt: '2024-12-01T00:00:00.000Z' } },
      {
        type: 'RecordingMediaDeleted',
        data: { ...s, objectIndexes: [0], cause: 'deleted', deletedAt: '2024-12-01T00:01:00.000Z' },
      },
    ]);
    await recording(done, (s) => [
      completed(s, [0]),
      stored(s, 0),
      { type: 'RecordingRetentionExpired', data: { ...s, expiredAt: '2025-11-21T09:15:02.500Z' } },
      {
        type: 'RecordingMediaDeleted',
        data: { ...s, objectIndexes: [0], cause: 'retention_expired', deletedAt: '2025-11-21T10:00:00.000Z' },
      },
    ]);
    await recording(alive, (s) => [completed(s, [0]), stored(s, 0)]);
    await recording(nothingStored, (s) => [
      completed(s, [0]),
      { type: 'RecordingRetentionExpired', data: { ...s, expiredAt: '2025-11-21T09:15:02.500Z' } },
    ]);
    await h.caughtUp();
    const mine = (await listRecordingsWithMediaToDelete(h.db.pool, 1000)).filter(
      (m) => m.record.projectId === projectId,
    );
    const byId = new Map(mine.map((m) => [m.record.recordingId, m]));
    expect([...byId.keys()].sort()).toEqual([expiredTwo.recordingId, deletedOne.recordingId].sort());
    expect(byId.get(expiredTwo.recordingId)).toMatchObject({
      cause: 'retention_expired',
      storageKeys: [
        { objectIndex: 0, storageKey: `projects/${projectId}/recordings/${expiredTwo.recordingId}/0.wav` },
        { objectIndex: 2, storageKey: `projects/${projectId}/recordings/${expiredTwo.recordingId}/2.wav` },
      ],
    });
    expect(byId.get(expiredTwo.recordingId)?.record.phase).toBe('retention_expired');
    expect(byId.get(deletedOne.recordingId)).toMatchObject({
      cause: 'deleted',
      storageKeys: [
        { objectIndex: 1, storageKey: `projects/${projectId}/recordings/${deletedOne.recordingId}/1.wav` },
      ],
    });
  });
});
