import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveSessionRecordings } from './deriveSessionRecordings.js';
import { storedFiles } from './effectiveFileState.js';
import { RETRYABLE_REASONS, UNAVAILABLE_REASONS } from './reasons.js';
import { input } from './spec/arbitraries.js';
import { fileKey, type RecordingRecord } from './types.js';

const DATA_KEYS = ['sessionId', 'projectId', 'status', 'unavailableReason', 'retryable', 'recordings'];
const RECORDING_KEYS = [
  'recordingId',
  'callId',
  'availability',
  'unavailableReason',
  'retryable',
  'durationSeconds',
  'immutable',
  'createdAt',
  'retentionExpiresAt',
  'files',
];
const FILE_KEYS = [
  'recordingId',
  'objectIndex',
  'fileName',
  'channel',
  'recordingType',
  'bytes',
  'recordingStartTime',
  'recordingEndTime',
  'availability',
  'url',
  'urlKind',
  'expiresIn',
  'unavailableReason',
  'retryable',
];

describe('deriveSessionRecordings (property: any mix of file states, URLs and context)', () => {
  it('keeps every field rule of spec 000 §2.1', () => {
    fc.assert(
      fc.property(input, (inp) => {
        const data = deriveSessionRecordings(inp);
        expect(Object.keys(data)).toEqual(DATA_KEYS);
        expect(data.sessionId).toBe(inp.sessionId);
        expect(data.projectId).toBe(inp.projectId);
        for (const [r, rec] of data.recordings.entries()) {
          const source = inp.recordings[r] as RecordingRecord;
          expect(Object.keys(rec)).toEqual(RECORDING_KEYS);
          expect(rec.recordingId).toBe(source.recordingId);
          expect(rec.files.map((f) => f.objectIndex)).toEqual(
            source.files.map((f) => f.objectIndex).sort((a, b) => a - b),
          );
          for (const f of rec.files) {
            expect(Object.keys(f)).toEqual(FILE_KEYS);
            expect(f.recordingId).toBe(rec.recordingId);
            if (f.url !== null) {
              expect(f.availability).toBe('available');
              expect(f.unavailableReason).toBeNull();
              expect(f.urlKind).not.toBeNull();
              expect(f.retryable).toBe(false);
            } else {
              expect(f.availability).not.toBe('available');
              expect(f.urlKind).toBeNull();
              expect(f.expiresIn).toBeNull();
              expect(f.bytes).toBe(0);
              expect(UNAVAILABLE_REASONS).toContain(f.unavailableReason);
              expect(f.retryable).toBe(RETRYABLE_REASONS.has(f.unavailableReason as never));
            }
            if (f.urlKind === 'external') expect(f.expiresIn).toBeNull();
            if (f.urlKind === 'signed' || f.urlKind === 'proxied') {
              expect(Number.isInteger(f.expiresIn)).toBe(true);
              expect(f.expiresIn as number).toBeGreaterThanOrEqual(1);
            }
            expect(f.expiresIn).not.toBe(0);
          }
          const available = rec.files.filter((f) => f.availability === 'available');
          expect(rec.availability === 'available').toBe(available.length > 0);
          if (available.length > 0) expect(rec.unavailableReason).toBeNull();
          else expect(rec.unavailableReason).not.toBeNull();
          if (rec.files.length > 0) {
            expect(rec.retryable).toBe(rec.files.some((f) => f.retryable));
            if (available.length === 0) expect(rec.unavailableReason).toBe(rec.files[0]?.unavailableReason);
          }
          if (rec.availability === 'media_in_progress') {
            expect(
              rec.files.length === 0 || rec.files.some((f) => f.availability === 'media_in_progress'),
            ).toBe(true);
          }
        }
        if (data.recordings.length === 0) {
          expect(data.unavailableReason).not.toBeNull();
          expect(['call_in_progress', 'recording_disabled', 'media_not_available']).toContain(
            data.unavailableReason,
          );
        } else {
          expect(data.unavailableReason).toBeNull();
          expect(data.retryable).toBe(data.recordings.some((r) => r.retryable));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('derives status by the rules of spec 000 §3', () => {
    fc.assert(
      fc.property(input, (inp) => {
        const data = deriveSessionRecordings(inp);
        if (data.recordings.length === 0) {
          expect(data.status).toBe(
            data.unavailableReason === 'call_in_progress' ? 'call_in_progress' : 'media_unavailable',
          );
          expect(data.retryable).toBe(data.unavailableReason === 'call_in_progress');
          return;
        }
        // A recording without files counts as one file without a URL, with the recording's reason.
        const units = data.recordings.flatMap((r) =>
          r.files.length > 0
            ? r.files.map((f) => ({ url: f.url, reason: f.unavailableReason }))
            : [{ url: null, reason: r.unavailableReason }],
        );
        const withUrl = units.filter((u) => u.url !== null).length;
        const expected =
          withUrl === units.length
            ? 'success'
            : withUrl > 0
              ? 'partial'
              : units.some((u) => u.reason === 'call_in_progress')
                ? 'call_in_progress'
                : units.some((u) => u.reason === 'media_in_progress')
                  ? 'media_in_progress'
                  : 'media_unavailable';
        expect(data.status).toBe(expected);
        if (data.status === 'success') expect(data.retryable).toBe(false);
        if (data.status === 'call_in_progress' || data.status === 'media_in_progress')
          expect(data.retryable).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('reports waiting files as call_in_progress until the session ends, then media_in_progress', () => {
    fc.assert(
      fc.property(input, (inp) => {
        const data = deriveSessionRecordings(inp);
        for (const rec of data.recordings) {
          for (const f of rec.files) {
            if (f.availability !== 'media_in_progress') continue;
            expect(f.unavailableReason).toBe(
              inp.context.sessionEnded ? 'media_in_progress' : 'call_in_progress',
            );
          }
        }
        // A recording with no files yet waits the same way, unless it failed or is gone.
        for (const [r, rec] of data.recordings.entries()) {
          const source = inp.recordings[r] as RecordingRecord;
          if (source.files.length > 0) continue;
          const waits = source.phase === 'started' || source.phase === 'completed';
          expect(rec.availability).toBe(waits ? 'media_in_progress' : 'unavailable');
          const waitReason = inp.context.sessionEnded ? 'media_in_progress' : 'call_in_progress';
          const finalReason = source.phase === 'failed' ? source.failureReason : source.phase;
          expect(rec.unavailableReason).toBe(waits ? waitReason : finalReason);
        }
      }),
    );
  });

  it('never invents a URL: each one was issued for that very file, or is its external URL', () => {
    fc.assert(
      fc.property(input, (inp) => {
        const data = deriveSessionRecordings(inp);
        for (const [r, rec] of data.recordings.entries()) {
          const source = inp.recordings[r] as RecordingRecord;
          for (const f of rec.files) {
            if (f.url === null) continue;
            const state = source.files.find((s) => s.objectIndex === f.objectIndex)?.state;
            const issued = inp.issued.get(fileKey(rec.recordingId, f.objectIndex));
            const issuedUrl = issued && 'url' in issued ? issued.url : undefined;
            expect(state?.kind === 'external' ? state.url : issuedUrl).toBe(f.url);
            expect(source.phase === 'deleted' || source.phase === 'retention_expired').toBe(false);
          }
        }
      }),
    );
  });

  it('answers a gone recording with its phase as every reason, final', () => {
    fc.assert(
      fc.property(input, (inp) => {
        const data = deriveSessionRecordings(inp);
        for (const [r, rec] of data.recordings.entries()) {
          const phase = (inp.recordings[r] as RecordingRecord).phase;
          if (phase !== 'deleted' && phase !== 'retention_expired') continue;
          expect(rec.availability).toBe('unavailable');
          expect(rec.unavailableReason).toBe(phase);
          expect(rec.retryable).toBe(false);
          for (const f of rec.files) expect(f.unavailableReason).toBe(phase);
        }
      }),
    );
  });

  it('lists as stored files exactly the files answered from issued URLs or their failures', () => {
    fc.assert(
      fc.property(input, (inp) => {
        const refs = storedFiles(inp.recordings);
        for (const ref of refs) {
          const rec = inp.recordings.find((r) => r.recordingId === ref.recordingId);
          expect(rec?.phase === 'deleted' || rec?.phase === 'retention_expired').toBe(false);
        }
        const stored = inp.recordings.flatMap((r) =>
          r.phase === 'deleted' || r.phase === 'retention_expired'
            ? []
            : r.files
                .filter((f) => f.state.kind === 'stored')
                .map((f) => fileKey(r.recordingId, f.objectIndex)),
        );
        expect(refs.map((r) => fileKey(r.recordingId, r.objectIndex)).sort()).toEqual(stored.sort());
      }),
    );
  });
});
