import { type EventDataInput, type EventType, recordingStream, toAppendUnknown } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import fc from 'fast-check';

export type RecordingEventType = Extract<EventType, `Recording${string}`>;
export interface EventInput<T extends RecordingEventType = RecordingEventType> {
  type: T;
  data: EventDataInput<T>;
}

// Few distinct times, some the same instant in other offsets: ties must not make order matter.
const times = [
  '2024-11-21T09:15:02.500Z',
  '2024-11-21T10:15:02.500+01:00',
  '2024-11-21T09:19:47.200Z',
  '2024-11-21T09:20:31.004Z',
  '2024-11-21T09:21:02.713Z',
  '2025-11-21T09:15:02.500Z',
];
const time = fc.constantFrom(...times);
const objectIndex = fc.nat({ max: 3 });
const channel = fc.constantFrom('caller' as const, 'agent' as const, 'mixed' as const);
const principal = fc.constant({ kind: 'user' as const, id: 'usr_legal_4' });
const holdId = fc.constantFrom('hold_a', 'hold_b');
const reason = fc.constantFrom(
  'media_not_available' as const,
  'auth_failed' as const,
  'storage_write_failed' as const,
  'media_object_missing' as const,
);

/** The events of one recording, in some order: any mix, repeats included. */
export function recordingEventsArbitrary(scope: {
  projectId: string;
  sessionId: string;
  recordingId: string;
}): fc.Arbitrary<EventInput[]> {
  const callId = fc.constantFrom('CA1', 'CA2');
  const event: fc.Arbitrary<EventInput> = fc.oneof(
    fc
      .record({ startedAt: time, callId, retentionExpiresAt: fc.option(time, { nil: undefined }) })
      .map((d) => ({
        type: 'RecordingStarted' as const,
        data: {
          ...scope,
          callId: d.callId,
          startedAt: d.startedAt,
          ...(d.retentionExpiresAt ? { retentionExpiresAt: d.retentionExpiresAt } : {}),
        },
      })),
    fc
      .record({
        completedAt: time,
        callId,
        durationSeconds: fc.option(fc.constantFrom(12.5, 284.4), { nil: undefined }),
        files: fc.uniqueArray(fc.record({ objectIndex, channel, external: fc.boolean() }), {
          minLength: 1,
          maxLength: 3,
          selector: (f) => f.objectIndex,
        }),
      })
      .map((d) => ({
        type: 'RecordingCompleted' as const,
        data: {
          ...scope,
          callId: d.callId,
          completedAt: d.completedAt,
          ...(d.durationSeconds === undefined ? {} : { durationSeconds: d.durationSeconds }),
          files: d.files.map((f) => ({
            objectIndex: f.objectIndex,
            channel: f.channel,
            fileName: `${f.objectIndex}.wav`,
            contentType: 'audio/wav',
            source: f.external
              ? { kind: 'external' as const, url: `https://customer.example/${f.objectIndex}.wav` }
              : { kind: 'recording_server' as const, url: `https://api.twilio.example/rec/${f.objectIndex}` },
          })),
        },
      })),
    fc
      .record({
        objectIndex,
        storedAt: time,
        bytes: fc.constantFrom(0, 44, 4_587_520),
        durationSeconds: fc.constantFrom(10, 284.4),
      })
      .map((d) => ({
        type: 'RecordingFileStored' as const,
        data: {
          ...scope,
          callId: 'CA1',
          objectIndex: d.objectIndex,
          bytes: d.bytes,
          storageKey: `projects/${scope.projectId}/recordings/${scope.recordingId}/${d.objectIndex}.wav`,
          durationSeconds: d.durationSeconds,
          recordingStartTime: '2024-11-21T09:15:02.500Z',
          storedAt: d.storedAt,
        },
      })),
    fc
      .record({ objectIndex: fc.option(objectIndex, { nil: undefined }), reason, failedAt: time })
      .map((d) => ({
        type: 'RecordingFailed' as const,
        data: {
          ...scope,
          reason: d.reason,
          failedAt: d.failedAt,
          ...(d.objectIndex === undefined ? {} : { objectIndex: d.objectIndex }),
        },
      })),
    time.map((deletedAt) => ({
      type: 'RecordingDeleted' as const,
      data: { ...scope, principal: { kind: 'user' as const, id: 'usr_1' }, deletedAt },
    })),
    time.map((expiredAt) => ({ type: 'RecordingRetentionExpired' as const, data: { ...scope, expiredAt } })),
    fc
      .record({
        objectIndexes: fc.uniqueArray(objectIndex, { maxLength: 3 }),
        cause: fc.constantFrom('retention_expired' as const, 'deleted' as const),
        deletedAt: time,
      })
      .map((d) => ({ type: 'RecordingMediaDeleted' as const, data: { ...scope, ...d } })),
    fc.record({ holdId, principal, placedAt: time }).map((d) => ({
      type: 'RecordingLegalHoldPlaced' as const,
      data: { ...scope, ...d },
    })),
    fc.record({ holdId, principal, liftedAt: time }).map((d) => ({
      type: 'RecordingLegalHoldLifted' as const,
      data: { ...scope, ...d },
    })),
  );
  return fc.array(event, { minLength: 1, maxLength: 10 });
}

/** Appendable events with fresh ids, for the stream `recording-<id>`. */
export function toAppends(events: readonly EventInput[]): EventToAppend[] {
  return events.map((e) => toAppendUnknown(e.type, e.data));
}

export { recordingStream };
