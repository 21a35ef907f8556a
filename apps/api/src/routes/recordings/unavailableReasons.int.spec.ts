import { randomUUID } from 'node:crypto';
import { recordingStream } from '@parley/events';
import type { MediaTokenStore } from '@parley/media';
import { UNAVAILABLE_REASONS } from '@parley/recordings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRecordingsFixture,
  type RecordingsFixture,
  serverFile,
  sessionEvents,
} from '../../testing/recordingsFixture.js';

/**
 * Every UnavailableReason and every session status of spec 000 §2.1/§3, each produced by a real
 * sequence of events appended to the log and projected by the recordings projection.
 */
let f: RecordingsFixture;
beforeAll(async () => {
  f = await createRecordingsFixture();
});
afterAll(async () => {
  await f?.close();
});

const seen = new Set<string>();
const statuses = new Set<string>();

async function recordingsOf(sessionId: string, app = f.app) {
  const res = await app.inject({
    method: 'GET',
    url: `/api/public/recordings/projects/${f.projectId}/sessions/${sessionId}/recordings`,
    headers: { 'x-api-key': f.keys.recordings },
  });
  expect(res.statusCode, res.body).toBe(200);
  const data = res.json().data;
  statuses.add(data.status);
  if (data.unavailableReason) seen.add(data.unavailableReason);
  for (const r of data.recordings)
    for (const file of r.files) if (file.unavailableReason) seen.add(file.unavailableReason);
  return data;
}

const ids = () => ({ sessionId: `sess-${randomUUID()}`, recordingId: `rec-${randomUUID()}` });
const unavailable = (reason: string, retryable: boolean) => ({
  availability:
    reason === 'call_in_progress' || reason === 'media_in_progress' ? 'media_in_progress' : 'unavailable',
  url: null,
  urlKind: null,
  expiresIn: null,
  unavailableReason: reason,
  retryable,
});

describe('every UnavailableReason from the log', () => {
  it('call_in_progress: the session has not ended and has no recording yet', async () => {
    const { sessionId } = ids();
    await f.appendAndProject([sessionEvents(f.projectId, sessionId).started()]);
    expect(await recordingsOf(sessionId)).toMatchObject({
      status: 'call_in_progress',
      unavailableReason: 'call_in_progress',
      retryable: true,
      recordings: [],
    });
  });

  it('call_in_progress: files listed while the call goes on', async () => {
    const { sessionId, recordingId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.completed(recordingId, [serverFile(0, 'mixed')]),
    ]);
    const data = await recordingsOf(sessionId);
    expect(data).toMatchObject({ status: 'call_in_progress', unavailableReason: null, retryable: true });
    expect(data.recordings[0]).toMatchObject({ unavailableReason: 'call_in_progress', retryable: true });
    expect(data.recordings[0].files[0]).toMatchObject({ ...unavailable('call_in_progress', true), bytes: 0 });
  });

  it('media_in_progress: the call ended, the files are still being fetched', async () => {
    const { sessionId, recordingId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.completed(recordingId, [serverFile(0, 'caller'), serverFile(1, 'agent')]),
      e.ended(),
    ]);
    const data = await recordingsOf(sessionId);
    expect(data).toMatchObject({ status: 'media_in_progress', unavailableReason: null, retryable: true });
    expect(data.recordings[0]).toMatchObject({
      availability: 'media_in_progress',
      unavailableReason: 'media_in_progress',
    });
    for (const file of data.recordings[0].files)
      expect(file).toMatchObject(unavailable('media_in_progress', true));
  });

  it('url_signing_failed: issuing one file URL fails this time (partial, retryable); the next call succeeds', async () => {
    const { sessionId, recordingId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    const keys = [
      await f.putMedia(recordingId, 0, Buffer.from('caller')),
      await f.putMedia(recordingId, 1, Buffer.from('agent')),
    ];
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.completed(recordingId, [serverFile(0, 'caller'), serverFile(1, 'agent')]),
      e.stored(recordingId, 0, keys[0]!, 6),
      e.stored(recordingId, 1, keys[1]!, 5),
      e.ended(),
    ]);
    const flaky: MediaTokenStore = {
      ...f.tokens,
      issue: async (binding, ttl) => {
        if (binding.objectIndex === 1) throw new Error('redis timeout');
        return f.tokens.issue(binding, ttl);
      },
    };
    const app = await f.makeApp({ tokens: flaky });
    try {
      const data = await recordingsOf(sessionId, app);
      expect(data).toMatchObject({ status: 'partial', unavailableReason: null, retryable: true });
      expect(data.recordings[0]).toMatchObject({
        availability: 'available',
        unavailableReason: null,
        retryable: true,
      });
      expect(data.recordings[0].files[0]).toMatchObject({
        availability: 'available',
        urlKind: 'proxied',
        retryable: false,
      });
      expect(data.recordings[0].files[1]).toMatchObject({
        ...unavailable('url_signing_failed', true),
        availability: 'unavailable',
      });
    } finally {
      await app.close();
    }
    expect((await recordingsOf(sessionId)).status).toBe('success');
  });

  it('recording_disabled: the session switched recording off (and so does the project setting)', async () => {
    const { sessionId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    await f.appendAndProject([e.started({ recordingEnabled: false }), e.ended()]);
    expect(await recordingsOf(sessionId)).toMatchObject({
      status: 'media_unavailable',
      unavailableReason: 'recording_disabled',
      retryable: false,
      recordings: [],
    });
    const other = ids();
    const o = sessionEvents(f.projectId, other.sessionId);
    await f.appendAndProject([o.started(), o.ended()]);
    const app = await f.makeApp({ recordingSettings: async () => ({ enabled: false }) });
    try {
      expect(await recordingsOf(other.sessionId, app)).toMatchObject({
        unavailableReason: 'recording_disabled',
        retryable: false,
      });
    } finally {
      await app.close();
    }
  });

  it('media_not_available: the recording server had no media (recording-level failure)', async () => {
    const { sessionId, recordingId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.failed(recordingId, 'media_not_available'),
      e.ended(),
    ]);
    const data = await recordingsOf(sessionId);
    expect(data).toMatchObject({ status: 'media_unavailable', unavailableReason: null, retryable: false });
    expect(data.recordings[0]).toMatchObject({
      availability: 'unavailable',
      unavailableReason: 'media_not_available',
      retryable: false,
    });
  });

  it('media_not_available: an ended, recorded session with no recording at all', async () => {
    const { sessionId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    await f.appendAndProject([e.started(), e.ended()]);
    expect(await recordingsOf(sessionId)).toMatchObject({
      status: 'media_unavailable',
      unavailableReason: 'media_not_available',
      retryable: false,
      recordings: [],
    });
  });

  for (const reason of ['auth_failed', 'storage_write_failed'] as const) {
    it(`${reason}: one file failed, the other is stored (partial, final)`, async () => {
      const { sessionId, recordingId } = ids();
      const e = sessionEvents(f.projectId, sessionId);
      const key = await f.putMedia(recordingId, 0, Buffer.from('mixed audio'));
      await f.appendAndProject([
        e.started(),
        e.recordingStarted(recordingId),
        e.completed(recordingId, [serverFile(0, 'mixed'), serverFile(1, 'caller')]),
        e.stored(recordingId, 0, key, 11),
        e.failed(recordingId, reason, 1),
        e.ended(),
      ]);
      const data = await recordingsOf(sessionId);
      expect(data).toMatchObject({ status: 'partial', retryable: false });
      expect(data.recordings[0].files[1]).toMatchObject({ ...unavailable(reason, false), bytes: 0 });
    });
  }

  it('media_object_missing: stored but the object is gone; recorded in the log once', async () => {
    const { sessionId, recordingId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    const key = await f.putMedia(recordingId, 0, Buffer.from('soon gone'));
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.completed(recordingId, [serverFile(0, 'mixed')]),
      e.stored(recordingId, 0, key, 9),
      e.ended(),
    ]);
    await f.storage.delete(key);
    const first = await recordingsOf(sessionId);
    expect(first).toMatchObject({ status: 'media_unavailable', retryable: false });
    expect(first.recordings[0].files[0]).toMatchObject(unavailable('media_object_missing', false));
    await recordingsOf(sessionId);
    const failures = [];
    for await (const event of f.store.readStream(recordingStream(recordingId))) {
      if (event.type === 'RecordingFailed') failures.push(event.data);
    }
    expect(failures).toEqual([
      expect.objectContaining({
        recordingId,
        objectIndex: 0,
        reason: 'media_object_missing',
        projectId: f.projectId,
      }),
    ]);
    // Once projected, the log alone says so (no storage call needed).
    await f.appendAndProject([]);
    expect((await recordingsOf(sessionId)).recordings[0].files[0].unavailableReason).toBe(
      'media_object_missing',
    );
  });

  it('retention_expired and deleted: the media is gone for good', async () => {
    for (const [reason, event] of [
      ['retention_expired', 'retentionExpired'],
      ['deleted', 'deleted'],
    ] as const) {
      const { sessionId, recordingId } = ids();
      const e = sessionEvents(f.projectId, sessionId);
      const key = await f.putMedia(recordingId, 0, Buffer.from('old call'));
      await f.appendAndProject([
        e.started(),
        e.recordingStarted(recordingId),
        e.completed(recordingId, [serverFile(0, 'mixed')]),
        e.stored(recordingId, 0, key, 8),
        e.ended(),
        e[event](recordingId),
      ]);
      const data = await recordingsOf(sessionId);
      expect(data).toMatchObject({ status: 'media_unavailable', retryable: false });
      expect(data.recordings[0]).toMatchObject({ unavailableReason: reason, retryable: false });
      expect(data.recordings[0].files[0]).toMatchObject({ ...unavailable(reason, false), bytes: 0 });
    }
  });

  it('external: a customer-owned URL passes through, with no expiry', async () => {
    const { sessionId, recordingId } = ids();
    const e = sessionEvents(f.projectId, sessionId);
    await f.appendAndProject([
      e.started(),
      e.recordingStarted(recordingId),
      e.completed(recordingId, [
        serverFile(0, 'mixed', {
          source: { kind: 'external', url: 'https://media.customer.example/calls/1.wav' },
        }),
      ]),
      e.ended(),
    ]);
    const data = await recordingsOf(sessionId);
    expect(data.status).toBe('success');
    expect(data.recordings[0].files[0]).toMatchObject({
      availability: 'available',
      url: 'https://media.customer.example/calls/1.wav',
      urlKind: 'external',
      expiresIn: null,
      unavailableReason: null,
    });
  });

  it('covered every reason and every status', () => {
    expect([...seen].sort()).toEqual([...UNAVAILABLE_REASONS].sort());
    expect([...statuses].sort()).toEqual([
      'call_in_progress',
      'media_in_progress',
      'media_unavailable',
      'partial',
      'success',
    ]);
  });
});
