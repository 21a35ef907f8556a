import fc from 'fast-check';
import { FILE_FAILURE_REASONS } from '../reasons.js';
import {
  type DeriveSessionRecordingsInput,
  type FileState,
  fileKey,
  type IssuedUrl,
  type RecordingFileRecord,
  type RecordingRecord,
} from '../types.js';

const fileState: fc.Arbitrary<FileState> = fc.oneof(
  fc.constant({ kind: 'pending' as const }),
  fc.string({ minLength: 1, maxLength: 8 }).map((storageKey) => ({ kind: 'stored' as const, storageKey })),
  fc.webUrl().map((url) => ({ kind: 'external' as const, url })),
  fc.constantFrom(...FILE_FAILURE_REASONS).map((reason) => ({ kind: 'failed' as const, reason })),
  fc
    .constantFrom('retention_expired' as const, 'deleted' as const)
    .map((reason) => ({ kind: 'gone' as const, reason })),
);

const time = fc
  .date({ min: new Date('2024-01-01'), max: new Date('2026-01-01'), noInvalidDate: true })
  .map((d) => d.toISOString());

const file = (objectIndex: number): fc.Arbitrary<RecordingFileRecord> =>
  fc.record({
    objectIndex: fc.constant(objectIndex),
    fileName: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
    channel: fc.constantFrom('caller' as const, 'agent' as const, 'mixed' as const, null),
    recordingType: fc.option(fc.constant('audio'), { nil: null }),
    contentType: fc.option(fc.constant('audio/wav'), { nil: null }),
    bytes: fc.nat(),
    recordingStartTime: fc.option(time, { nil: null }),
    recordingEndTime: fc.option(time, { nil: null }),
    state: fileState,
  });

const recording = (recordingId: string): fc.Arbitrary<RecordingRecord> =>
  fc
    .record({
      phase: fc.constantFrom(
        'started' as const,
        'completed' as const,
        'failed' as const,
        'retention_expired' as const,
        'deleted' as const,
      ),
      failureReason: fc.option(fc.constantFrom(...FILE_FAILURE_REASONS), { nil: null }),
      indexes: fc.uniqueArray(fc.nat({ max: 8 }), { maxLength: 4 }),
      immutable: fc.boolean(),
      createdAt: time,
      retentionExpiresAt: fc.option(time, { nil: null }),
      durationSeconds: fc.option(fc.double({ min: 0, max: 1e5, noNaN: true }), { nil: null }),
    })
    .chain((r) =>
      fc.tuple(...r.indexes.map(file)).map(
        (files): RecordingRecord => ({
          recordingId,
          callId: `call_${recordingId}`,
          sessionId: 's1',
          projectId: 'p1',
          createdAt: r.createdAt,
          durationSeconds: r.durationSeconds,
          immutable: r.immutable,
          retentionExpiresAt: r.retentionExpiresAt,
          phase: r.phase,
          failureReason: r.phase === 'failed' ? (r.failureReason ?? 'media_not_available') : null,
          files,
        }),
      ),
    );

const issuedUrl: fc.Arbitrary<IssuedUrl | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.record({
    url: fc.webUrl(),
    urlKind: fc.constantFrom('signed' as const, 'proxied' as const),
    expiresIn: fc.oneof(
      fc.integer({ min: -5, max: 3600 }),
      fc.double({ min: 0, max: 5, noNaN: true }),
      fc.constant(null),
    ),
  }),
  fc.record({ url: fc.webUrl(), urlKind: fc.constant('external' as const), expiresIn: fc.constant(null) }),
  fc.constantFrom({ failure: 'url_signing_failed' as const }, { failure: 'media_object_missing' as const }),
);

/** Any session: any mix of recordings, phases, file states, issued URLs and context. */
export const input: fc.Arbitrary<DeriveSessionRecordingsInput> = fc
  .record({
    sessionEnded: fc.boolean(),
    recordingEnabled: fc.boolean(),
    count: fc.nat({ max: 4 }),
  })
  .chain(({ sessionEnded, recordingEnabled, count }) =>
    fc.tuple(...Array.from({ length: count }, (_, i) => recording(`rec_${i}`))).chain((recordings) => {
      const keys = recordings.flatMap((r) => r.files.map((f) => fileKey(r.recordingId, f.objectIndex)));
      return fc.tuple(...keys.map(() => issuedUrl)).map((urls) => {
        const issued = new Map<string, IssuedUrl>();
        keys.forEach((k, i) => {
          const u = urls[i];
          if (u !== undefined) issued.set(k, u);
        });
        return {
          sessionId: 's1',
          projectId: 'p1',
          context: { sessionEnded, recordingEnabled },
          recordings,
          issued,
        };
      });
    }),
  );
