import { randomUUID } from 'node:crypto';
import { recordingStream, sessionStream, toAppend } from '@parley/events';
import { eventExamples, recordedFrom } from '@parley/events/testing';
import type { EventToAppend, RecordedEvent } from '@parley/eventstore';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import type { RecordingFileRecord } from '@parley/recordings';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordingsProjection } from './recordingsProjection.js';
import { type EventInput, recordingEventsArbitrary, toAppends } from './spec/recordingEvents.js';

const scope = { projectId: 'proj_1', sessionId: 'sess_1', recordingId: 'rec_1' };

let seq = 0;
function recorded(
  events: readonly EventToAppend[],
  stream = recordingStream(scope.recordingId),
): RecordedEvent[] {
  return events.map((e) => {
    seq += 1;
    return recordedFrom(e, { stream, position: { commit: BigInt(seq), prepare: BigInt(seq) } });
  });
}
const fold = (events: readonly RecordedEvent[]) =>
  memoryRows(projectInMemory(recordingsProjection, events), 'recordings');
/** The files of the first row. */
const filesOf = (rows: ReturnType<typeof fold>) => (rows[0]?.files ?? []) as RecordingFileRecord[];
const append = (inputs: readonly EventInput[]) => recorded(toAppends(inputs));

describe('recordings projection: order', () => {
  it('gives the same row for every order of a recording’s events, replays and batch cuts included', () => {
    fc.assert(
      fc.property(
        recordingEventsArbitrary(scope).chain((events) =>
          fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length }), fc.nat()),
        ),
        ([events, shuffled, cut]) => {
          const inOrder = append(events);
          const reordered = append(shuffled);
          const expected = fold(inOrder);
          expect(fold(reordered)).toEqual(expected);
          // A replayed event (same event again, e.g. after a crash) changes nothing.
          expect(fold([...inOrder, ...recorded(toAppends(events.slice(0, 1)))])).toEqual(expected);
          // Folded in two batches: the row read back feeds the second one.
          const at = cut % (reordered.length + 1);
          const first = projectInMemory(recordingsProjection, reordered.slice(0, at));
          const both = projectInMemory(recordingsProjection, reordered.slice(at), first);
          expect(memoryRows(both, 'recordings')).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});

const at = (iso: string) => iso;
const started: EventInput = {
  type: 'RecordingStarted',
  data: {
    ...scope,
    callId: 'CA1',
    startedAt: at('2024-11-21T09:15:02.500Z'),
    retentionExpiresAt: '2025-11-21T09:15:02.500Z',
  },
};
const completed: EventInput = {
  type: 'RecordingCompleted',
  data: {
    ...scope,
    callId: 'CA1',
    durationSeconds: 284.4,
    completedAt: '2024-11-21T09:19:47.200Z',
    files: [
      {
        objectIndex: 0,
        channel: 'caller',
        fileName: 'c.wav',
        source: { kind: 'recording_server', url: 'https://r.example/0' },
      },
      { objectIndex: 1, channel: 'agent', source: { kind: 'recording_server', url: 'https://r.example/1' } },
      {
        objectIndex: 2,
        channel: 'mixed',
        source: { kind: 'external', url: 'https://customer.example/m.wav' },
      },
    ],
  },
};
const stored = (objectIndex: number, storedAt = '2024-11-21T09:20:31.004Z'): EventInput => ({
  type: 'RecordingFileStored',
  data: {
    ...scope,
    callId: 'CA1',
    objectIndex,
    bytes: 4_587_520,
    contentType: 'audio/wav',
    storageKey: `k/${objectIndex}.wav`,
    storedAt,
  },
});
const failed = (
  reason: 'media_not_available' | 'media_object_missing',
  failedAt: string,
  objectIndex?: number,
): EventInput => ({
  type: 'RecordingFailed',
  data: { ...scope, reason, failedAt, ...(objectIndex === undefined ? {} : { objectIndex }) },
});

describe('recordings projection: lifecycle', () => {
  it('a started recording: phase started, no files, createdAt and retention from RecordingStarted', () => {
    const [row] = fold(append([started]));
    expect(row).toMatchObject({
      project_id: 'proj_1',
      recording_id: 'rec_1',
      session_id: 'sess_1',
      call_id: 'CA1',
      created_at: new Date('2024-11-21T09:15:02.500Z'),
      phase: 'started',
      failure_reason: null,
      immutable: false,
      retention_expires_at: new Date('2025-11-21T09:15:02.500Z'),
      duration_seconds: null,
      files: [],
      media_to_delete: false,
    });
  });

  it('completed then stored: pending, stored and external files with merged metadata', () => {
    const [row] = fold(append([started, completed, stored(0)]));
    expect(row?.phase).toBe('completed');
    expect(row?.duration_seconds).toBe(284.4);
    expect(row?.files).toEqual([
      {
        objectIndex: 0,
        fileName: 'c.wav',
        channel: 'caller',
        recordingType: null,
        contentType: 'audio/wav',
        bytes: 4_587_520,
        recordingStartTime: null,
        recordingEndTime: null,
        state: { kind: 'stored', storageKey: 'k/0.wav' },
      },
      expect.objectContaining({ objectIndex: 1, channel: 'agent', bytes: 0, state: { kind: 'pending' } }),
      expect.objectContaining({
        objectIndex: 2,
        state: { kind: 'external', url: 'https://customer.example/m.wav' },
      }),
    ]);
  });

  it('a stored object found missing later is failed; a failure before a successful retry is not', () => {
    const missing = fold(
      append([completed, stored(0), failed('media_object_missing', '2024-11-22T00:00:00.000Z', 0)]),
    );
    expect(filesOf(missing)[0]?.state).toEqual({
      kind: 'failed',
      reason: 'media_object_missing',
    });
    const retried = fold(
      append([completed, failed('media_not_available', '2024-11-21T09:20:00.000Z', 0), stored(0)]),
    );
    expect(filesOf(retried)[0]?.state).toEqual({
      kind: 'stored',
      storageKey: 'k/0.wav',
    });
  });

  it('a failure of the whole recording: phase failed, pending files failed with its reason', () => {
    const [onlyStarted] = fold(append([started, failed('media_not_available', '2024-11-21T09:20:00.000Z')]));
    expect(onlyStarted).toMatchObject({ phase: 'failed', failure_reason: 'media_not_available', files: [] });
    const withFiles = fold(
      append([completed, stored(1), failed('media_not_available', '2024-11-21T09:20:00.000Z')]),
    );
    expect(filesOf(withFiles).map((f) => f.state.kind)).toEqual(['failed', 'stored', 'failed']);
  });

  it('retention expiry, then media deletion; legal holds', () => {
    const expired: EventInput = {
      type: 'RecordingRetentionExpired',
      data: { ...scope, expiredAt: '2025-11-21T09:15:02.500Z' },
    };
    const goneRows = fold(append([started, completed, stored(0), stored(1), expired]));
    const gone = goneRows[0];
    expect(gone).toMatchObject({ phase: 'retention_expired', media_to_delete: true });
    expect(filesOf(goneRows).every((f) => f.state.kind === 'gone')).toBe(true);
    const mediaDeleted: EventInput = {
      type: 'RecordingMediaDeleted',
      data: {
        ...scope,
        objectIndexes: [0, 1],
        cause: 'retention_expired',
        deletedAt: '2025-11-21T10:00:00.000Z',
      },
    };
    expect(
      fold(append([started, completed, stored(0), stored(1), expired, mediaDeleted]))[0]?.media_to_delete,
    ).toBe(false);

    const place = (holdId: string): EventInput => ({
      type: 'RecordingLegalHoldPlaced',
      data: { ...scope, holdId, principal: { kind: 'user', id: 'u' }, placedAt: '2024-11-25T10:00:00.000Z' },
    });
    const lift = (holdId: string): EventInput => ({
      type: 'RecordingLegalHoldLifted',
      data: { ...scope, holdId, principal: { kind: 'user', id: 'u' }, liftedAt: '2025-02-01T10:00:00.000Z' },
    });
    expect(fold(append([started, place('h1')]))[0]?.immutable).toBe(true);
    expect(fold(append([started, place('h1'), place('h2'), lift('h1')]))[0]?.immutable).toBe(true);
    expect(fold(append([lift('h1'), started, place('h1')]))[0]?.immutable).toBe(false);
  });

  it('sessions: started, ended and the session’s own recording setting (off wins)', () => {
    const sessionId = `sess_${randomUUID()}`;
    const start = (recordingEnabled?: boolean) =>
      toAppend('SessionStarted', {
        ...eventExamples.SessionStarted,
        projectId: 'proj_1',
        sessionId,
        ...(recordingEnabled === undefined ? {} : { recordingEnabled }),
      });
    const end = toAppend('SessionEnded', { ...eventExamples.SessionEnded, projectId: 'proj_1', sessionId });
    const rows = (events: EventToAppend[]) =>
      memoryRows(
        projectInMemory(recordingsProjection, recorded(events, sessionStream(sessionId))),
        'recording_sessions',
      );
    expect(rows([start()])).toEqual([
      { project_id: 'proj_1', session_id: sessionId, started: true, ended: false, recording_enabled: null },
    ]);
    expect(rows([end, start(false)])).toEqual([
      { project_id: 'proj_1', session_id: sessionId, started: true, ended: true, recording_enabled: false },
    ]);
    expect(rows([start(false), start(true)])[0]?.recording_enabled).toBe(false);
    expect(rows([start(true), start(false)])[0]?.recording_enabled).toBe(false);
  });

  it('ignores other event types', () => {
    const events = recorded([toAppend('LlmCallRecorded', eventExamples.LlmCallRecorded)]);
    expect(fold(events)).toEqual([]);
  });
});
