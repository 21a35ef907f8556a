import { randomUUID } from 'node:crypto';
import { auditStream } from '@parley/events';
import {
  contentDisposition,
  createS3MediaStorage,
  type MediaStorage,
  recordingMediaKey,
} from '@parley/media';
import { type RunningS3rver, startS3rver } from '@parley/media/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoWav } from '../../testing/demoWav.js';
import {
  createRecordingsFixture,
  type RecordingsFixture,
  serverFile,
  sessionEvents,
} from '../../testing/recordingsFixture.js';

/** The S3 path end to end: media in an S3-compatible server (s3rver), pre-signed URLs fetched with plain fetch. */
let f: RecordingsFixture;
let s3: RunningS3rver;
let storage: MediaStorage;
let app: FastifyInstance;
beforeAll(async () => {
  f = await createRecordingsFixture();
  s3 = await startS3rver();
  storage = createS3MediaStorage(s3.storageOptions);
  app = await f.makeApp({ storage, mediaUrlTtlSeconds: 600 });
});
afterAll(async () => {
  await app?.close();
  await s3?.stop();
  await f?.close();
});

async function storedInS3(
  files: Array<{ objectIndex: number; channel: 'caller' | 'agent' | 'mixed'; body: Buffer }>,
) {
  const sessionId = `sess-${randomUUID()}`;
  const recordingId = `rec-${randomUUID()}`;
  const e = sessionEvents(f.projectId, sessionId);
  const keys: string[] = [];
  for (const file of files) {
    const key = recordingMediaKey({
      projectId: f.projectId,
      recordingId,
      objectIndex: file.objectIndex,
      extension: 'wav',
    });
    await storage.put(key, file.body, { contentType: 'audio/wav' });
    keys.push(key);
  }
  await f.appendAndProject([
    e.started(),
    e.recordingStarted(recordingId),
    e.completed(
      recordingId,
      files.map((file) => serverFile(file.objectIndex, file.channel)),
    ),
    ...files.map((file, i) => e.stored(recordingId, file.objectIndex, keys[i]!, file.body.length)),
    e.ended(),
  ]);
  return { sessionId, recordingId, keys };
}

const recordingsOf = async (sessionId: string, disposition: string) => {
  const res = await app.inject({
    method: 'GET',
    url: `/api/public/recordings/projects/${f.projectId}/sessions/${sessionId}/recordings?disposition=${disposition}`,
    headers: { authorization: `Bearer ${f.keys.recordings}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

describe('recordings in S3-compatible storage', () => {
  it('issues pre-signed URLs that plain fetch downloads, with the chosen disposition and Range support', async () => {
    const caller = demoWav(1);
    const agent = demoWav(2);
    const { sessionId, recordingId } = await storedInS3([
      { objectIndex: 0, channel: 'caller', body: caller },
      { objectIndex: 1, channel: 'agent', body: agent },
    ]);
    const data = await recordingsOf(sessionId, 'attachment');
    expect(data.status).toBe('success');
    const files = data.recordings[0].files;
    for (const [i, body] of [caller, agent].entries()) {
      expect(files[i]).toMatchObject({
        availability: 'available',
        urlKind: 'signed',
        expiresIn: 600,
        bytes: body.length,
      });
      expect(files[i].url.startsWith(`${s3.endpoint}/`)).toBe(true);
      const res = await fetch(files[i].url);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
      expect(res.headers.get('content-disposition')).toBe(
        contentDisposition('attachment', files[i].fileName),
      );
    }
    const partial = await fetch(files[0].url, { headers: { range: 'bytes=0-43' } });
    expect(partial.status).toBe(206);
    expect(Buffer.from(await partial.arrayBuffer()).toString('ascii', 0, 4)).toBe('RIFF');

    const inline = (await recordingsOf(sessionId, 'inline')).recordings[0].files[0];
    expect((await fetch(inline.url)).headers.get('content-disposition')).toMatch(/^inline;/);

    // Audited, with the kind of URL and never the URL.
    const audit = [];
    for await (const event of f.store.readStream(auditStream(f.projectId))) audit.push(event.data);
    const mine = audit.filter((a) => JSON.stringify(a).includes(recordingId));
    expect(mine.map((a) => (a as { content: unknown }).content)).toEqual([
      {
        files: [
          { recordingId, objectIndex: 0, urlKind: 'signed' },
          { recordingId, objectIndex: 1, urlKind: 'signed' },
        ],
        disposition: 'attachment',
      },
      {
        files: [
          { recordingId, objectIndex: 0, urlKind: 'signed' },
          { recordingId, objectIndex: 1, urlKind: 'signed' },
        ],
        disposition: 'inline',
      },
    ]);
    expect(JSON.stringify(mine)).not.toContain('X-Amz-Signature');
  });

  it('reports an object deleted from the bucket as media_object_missing (partial)', async () => {
    const { sessionId, keys } = await storedInS3([
      { objectIndex: 0, channel: 'mixed', body: demoWav(3) },
      { objectIndex: 1, channel: 'caller', body: demoWav(4) },
    ]);
    await storage.delete(keys[1]!);
    const data = await recordingsOf(sessionId, 'attachment');
    expect(data.status).toBe('partial');
    expect(data.recordings[0].files[1]).toMatchObject({
      availability: 'unavailable',
      url: null,
      unavailableReason: 'media_object_missing',
      retryable: false,
    });
  });

  it('answers url_signing_failed when the storage cannot be reached', async () => {
    const { sessionId } = await storedInS3([{ objectIndex: 0, channel: 'mixed', body: demoWav(5) }]);
    const unreachable = createS3MediaStorage({ ...s3.storageOptions, endpoint: 'http://127.0.0.1:9' });
    const broken = await f.makeApp({ storage: unreachable });
    try {
      const res = await broken.inject({
        method: 'GET',
        url: `/api/public/recordings/projects/${f.projectId}/sessions/${sessionId}/recordings`,
        headers: { 'x-api-key': f.keys.recordings },
      });
      // Nothing available and nothing being fetched (@parley/recordings): media_unavailable, yet retryable.
      expect(res.json().data).toMatchObject({ status: 'media_unavailable', retryable: true });
      expect(res.json().data.recordings[0].files[0]).toMatchObject({
        unavailableReason: 'url_signing_failed',
        retryable: true,
      });
    } finally {
      await broken.close();
    }
  });
});
