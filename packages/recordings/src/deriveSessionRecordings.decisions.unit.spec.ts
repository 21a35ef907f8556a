import { describe, expect, it } from 'vitest';
import { deriveSessionRecordings } from './deriveSessionRecordings.js';
import {
  type FileState,
  fileKey,
  type IssuedUrl,
  type RecordingFileRecord,
  type RecordingRecord,
} from './types.js';

const base = (patch: Partial<RecordingRecord> = {}): RecordingRecord => ({
  recordingId: 'rec_1',
  callId: 'CA1',
  sessionId: 's1',
  projectId: 'p1',
  createdAt: '2024-11-21T09:15:02.500Z',
  durationSeconds: 284.4,
  immutable: false,
  retentionExpiresAt: null,
  phase: 'completed',
  failureReason: null,
  files: [],
  ...patch,
});
const f = (objectIndex: number, state: FileState, bytes = 100): RecordingFileRecord => ({
  objectIndex,
  fileName: `${objectIndex}.wav`,
  channel: 'mixed',
  recordingType: 'audio',
  contentType: 'audio/wav',
  bytes,
  recordingStartTime: null,
  recordingEndTime: null,
  state,
});
const derive = (
  recordings: RecordingRecord[],
  issued: Array<[string, IssuedUrl]> = [],
  context = { sessionEnded: true, recordingEnabled: true },
) =>
  deriveSessionRecordings({ sessionId: 's1', projectId: 'p1', context, recordings, issued: new Map(issued) });

describe('deriveSessionRecordings (decisions)', () => {
  it('a session without recordings: recording_disabled, else call_in_progress, else media_not_available', () => {
    expect(derive([], [], { sessionEnded: false, recordingEnabled: false })).toMatchObject({
      status: 'media_unavailable',
      unavailableReason: 'recording_disabled',
      retryable: false,
    });
    expect(derive([], [], { sessionEnded: false, recordingEnabled: true })).toMatchObject({
      status: 'call_in_progress',
      unavailableReason: 'call_in_progress',
      retryable: true,
    });
    expect(derive([], [], { sessionEnded: true, recordingEnabled: true })).toMatchObject({
      status: 'media_unavailable',
      unavailableReason: 'media_not_available',
      retryable: false,
    });
  });

  it('a started recording without files waits on the call, then on the media', () => {
    const started = base({ phase: 'started' });
    const during = derive([started], [], { sessionEnded: false, recordingEnabled: true });
    expect(during.status).toBe('call_in_progress');
    expect(during.recordings[0]).toMatchObject({
      availability: 'media_in_progress',
      unavailableReason: 'call_in_progress',
      retryable: true,
      files: [],
    });
    const after = derive([started]);
    expect(after.status).toBe('media_in_progress');
    expect(after.recordings[0]?.unavailableReason).toBe('media_in_progress');
  });

  it('a failed recording without files says why, final', () => {
    const data = derive([base({ phase: 'failed', failureReason: 'auth_failed' })]);
    expect(data).toMatchObject({ status: 'media_unavailable', retryable: false, unavailableReason: null });
    expect(data.recordings[0]).toMatchObject({
      availability: 'unavailable',
      unavailableReason: 'auth_failed',
    });
  });

  it('a stored file whose URL failed to sign is url_signing_failed for that file only (partial, retryable)', () => {
    const rec = base({
      files: [f(0, { kind: 'stored', storageKey: 'k0' }), f(1, { kind: 'stored', storageKey: 'k1' })],
    });
    const data = derive(
      [rec],
      [
        [fileKey('rec_1', 0), { url: 'https://s3.example/k0?sig', urlKind: 'signed', expiresIn: 900 }],
        [fileKey('rec_1', 1), { failure: 'url_signing_failed' }],
      ],
    );
    expect(data.status).toBe('partial');
    expect(data.retryable).toBe(true);
    expect(data.recordings[0]?.files).toEqual([
      {
        recordingId: 'rec_1',
        objectIndex: 0,
        fileName: '0.wav',
        channel: 'mixed',
        recordingType: 'audio',
        bytes: 100,
        recordingStartTime: null,
        recordingEndTime: null,
        availability: 'available',
        url: 'https://s3.example/k0?sig',
        urlKind: 'signed',
        expiresIn: 900,
        unavailableReason: null,
        retryable: false,
      },
      {
        recordingId: 'rec_1',
        objectIndex: 1,
        fileName: '1.wav',
        channel: 'mixed',
        recordingType: 'audio',
        bytes: 0,
        recordingStartTime: null,
        recordingEndTime: null,
        availability: 'unavailable',
        url: null,
        urlKind: null,
        expiresIn: null,
        unavailableReason: 'url_signing_failed',
        retryable: true,
      },
    ]);
  });

  it('an external file is passed through with expiresIn null; all files with URLs is success', () => {
    const data = derive([
      base({ files: [f(0, { kind: 'external', url: 'https://customer.example/a.wav' }, 0)] }),
    ]);
    expect(data.status).toBe('success');
    expect(data.retryable).toBe(false);
    expect(data.recordings[0]?.files[0]).toMatchObject({
      url: 'https://customer.example/a.wav',
      urlKind: 'external',
      expiresIn: null,
    });
  });

  it('a stored object found missing is media_object_missing, final', () => {
    const data = derive(
      [base({ files: [f(0, { kind: 'stored', storageKey: 'k0' })] })],
      [[fileKey('rec_1', 0), { failure: 'media_object_missing' }]],
    );
    expect(data).toMatchObject({ status: 'media_unavailable', retryable: false });
    expect(data.recordings[0]).toMatchObject({ unavailableReason: 'media_object_missing', retryable: false });
  });

  it('a recording that failed as a whole fails its pending files, keeps its stored ones', () => {
    const rec = base({
      phase: 'failed',
      failureReason: 'storage_write_failed',
      files: [f(0, { kind: 'pending' }), f(1, { kind: 'stored', storageKey: 'k1' })],
    });
    const data = derive(
      [rec],
      [[fileKey('rec_1', 1), { url: '/api/x', urlKind: 'proxied', expiresIn: 899.7 }]],
    );
    expect(data.status).toBe('partial');
    expect(data.retryable).toBe(false);
    expect(data.recordings[0]?.files.map((x) => [x.unavailableReason, x.expiresIn])).toEqual([
      ['storage_write_failed', null],
      [null, 899],
    ]);
  });
});
