import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { auditStream } from '@parley/events';
import { contentDisposition, createInProcessMediaTokenStore } from '@parley/media';
import { redactedPaths } from '@parley/platform';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRecordingsFixture,
  type RecordingsFixture,
  serverFile,
  sessionEvents,
} from '../../testing/recordingsFixture.js';
import { mediaTokenId } from './mediaContentRoute.js';

let f: RecordingsFixture;
beforeAll(async () => {
  f = await createRecordingsFixture();
});
afterAll(async () => {
  await f?.close();
});

/** 1000 bytes whose every byte says where it is. */
const MEDIA = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

async function proxiedUrl(disposition = 'attachment', app = f.app) {
  const sessionId = `sess-${randomUUID()}`;
  const recordingId = `rec-${randomUUID()}`;
  const e = sessionEvents(f.projectId, sessionId);
  const key = await f.putMedia(recordingId, 0, MEDIA);
  await f.appendAndProject([
    e.started(),
    e.recordingStarted(recordingId),
    e.completed(recordingId, [serverFile(0, 'mixed', { fileName: 'Appel client – 21 nov.wav' })]),
    e.stored(recordingId, 0, key, MEDIA.length),
    e.ended(),
  ]);
  const res = await app.inject({
    method: 'GET',
    url: `/api/public/recordings/projects/${f.projectId}/sessions/${sessionId}/recordings?disposition=${disposition}`,
    headers: { 'x-api-key': f.keys.recordings },
  });
  const file = res.json().data.recordings[0].files[0];
  expect(file.urlKind).toBe('proxied');
  const token = /\/media\/content\/([^?]+)\?/.exec(file.url)![1]!;
  return { url: file.url as string, token, recordingId, sessionId, key };
}

const fetchMedia = (
  url: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
  app = f.app,
) => app.inject({ method, url, headers });

describe('GET a proxied media URL', () => {
  it('200: the whole object, with the disposition chosen, Accept-Ranges and no-cache headers', async () => {
    const { url } = await proxiedUrl('attachment');
    const res = await fetchMedia(url);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(MEDIA)).toBe(true);
    expect(res.headers).toMatchObject({
      'content-type': 'audio/wav',
      'content-length': '1000',
      'accept-ranges': 'bytes',
      'content-disposition': contentDisposition('attachment', 'Appel client – 21 nov.wav'),
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['content-disposition']).toMatch(/^attachment;/);
    const inline = await proxiedUrl('inline');
    expect((await fetchMedia(inline.url)).headers['content-disposition']).toMatch(/^inline;/);
  });

  it('206: one byte range (first-last, open-ended, suffix), with Content-Range', async () => {
    const { url } = await proxiedUrl();
    const cases: Array<[string, number, number]> = [
      ['bytes=0-99', 0, 99],
      ['bytes=900-', 900, 999],
      ['bytes=-10', 990, 999],
      ['bytes=995-5000', 995, 999],
    ];
    for (const [range, start, end] of cases) {
      const res = await fetchMedia(url, { range });
      expect(res.statusCode, range).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(res.rawPayload.equals(MEDIA.subarray(start, end + 1))).toBe(true);
    }
    // Several ranges: the whole object (a server may ignore Range).
    expect((await fetchMedia(url, { range: 'bytes=0-1,5-6' })).statusCode).toBe(200);
  });

  it('416: a range past the end, with Content-Range bytes */size', async () => {
    const { url } = await proxiedUrl();
    for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
      const res = await fetchMedia(url, { range });
      expect(res.statusCode, range).toBe(416);
      expect(res.headers['content-range']).toBe('bytes */1000');
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'RANGE_NOT_SATISFIABLE', message: expect.any(String) },
      });
    }
  });

  it('HEAD: headers only', async () => {
    const { url } = await proxiedUrl();
    const res = await fetchMedia(url, { range: 'bytes=10-19' }, 'HEAD');
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe('bytes 10-19/1000');
    expect(res.rawPayload.length).toBe(0);
  });

  it('404, the same every time: unknown, tampered, foreign and expired tokens, other ids, bad queries', async () => {
    const { url, token, recordingId } = await proxiedUrl();
    const other = await proxiedUrl();
    const swap = (from: string, to: string) => url.replace(from, to);
    const wrong = [
      swap(token, 'A'.repeat(43)),
      swap(token, `${token.slice(0, 42)}${token.endsWith('A') ? 'B' : 'A'}`),
      swap(token, other.token),
      swap(token, 'short'),
      swap(recordingId, other.recordingId),
      swap('objectIndex=0', 'objectIndex=1'),
      swap('objectIndex=0', 'objectIndex=x'),
      swap('disposition=attachment', 'disposition=download'),
      swap(`/projects/${f.projectId}/`, '/projects/proj_other/'),
      url.split('?')[0]!,
    ];
    const bodies = new Set<string>();
    for (const target of wrong) {
      const res = await fetchMedia(target);
      expect(res.statusCode, target).toBe(404);
      bodies.add(res.body);
    }
    expect([...bodies]).toEqual([
      JSON.stringify({ success: false, error: { code: 'NOT_FOUND', message: 'Media not found' } }),
    ]);
    expect((await fetchMedia(url)).statusCode).toBe(200);

    // Expired: a token store whose clock has moved past the URL's lifetime.
    let now = Date.now();
    const tokens = createInProcessMediaTokenStore({ now: () => now });
    const app = await f.makeApp({ tokens });
    try {
      const fresh = await proxiedUrl('attachment', app);
      expect((await fetchMedia(fresh.url, {}, 'GET', app)).statusCode).toBe(200);
      now += 901_000;
      expect((await fetchMedia(fresh.url, {}, 'GET', app)).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('404 once the media is gone (deleted recording, missing object)', async () => {
    const deleted = await proxiedUrl();
    await f.appendAndProject([sessionEvents(f.projectId, deleted.sessionId).deleted(deleted.recordingId)]);
    expect((await fetchMedia(deleted.url)).statusCode).toBe(404);
    const missing = await proxiedUrl();
    await f.storage.delete(missing.key);
    expect((await fetchMedia(missing.url)).statusCode).toBe(404);
  });

  it('audits every GET that streams, with the token-bearing request as principal and never the token', async () => {
    const { url, token, recordingId } = await proxiedUrl('inline');
    const count = async () => {
      const found = [];
      for await (const event of f.store.readStream(auditStream(f.projectId))) {
        const data = event.data as { action: string; content: { recordingId?: string } };
        if (data.action === 'recording:media_content_streamed' && data.content.recordingId === recordingId)
          found.push(data);
      }
      return found;
    };
    await fetchMedia(url);
    await fetchMedia(url, { range: 'bytes=0-9' });
    await fetchMedia(url, {}, 'HEAD');
    await fetchMedia(url, { range: 'bytes=5000-' });
    const records = await count();
    expect(records).toHaveLength(2);
    expect(records[0]).toEqual({
      projectId: f.projectId,
      action: 'recording:media_content_streamed',
      principal: { kind: 'media_token', id: mediaTokenId(token) },
      resource: { type: 'recording', id: recordingId },
      content: { recordingId, objectIndex: 0, disposition: 'inline' },
      at: expect.any(String),
    });
    expect(JSON.stringify(records)).not.toContain(token);
  });

  it('never writes the token to the request logs (production redaction, and the request serializer alone)', async () => {
    const production = { level: 'debug', redact: { paths: redactedPaths, censor: '[redacted]' } };
    for (const options of [production, { level: 'debug' }]) {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const app = await f.makeApp({}, { logger: pino(options, sink) });
      try {
        const { url, token } = await proxiedUrl('attachment', app);
        await fetchMedia(url, { range: 'bytes=0-1' }, 'GET', app);
        await fetchMedia(url.replace(token, 'B'.repeat(43)), {}, 'GET', app);
        const log = lines.join('');
        expect(log).toContain('request completed');
        if (options === production) expect(log).toContain('"url":"[redacted]"');
        else expect(log).toContain('/media/content/[redacted]?objectIndex=0');
        expect(log).not.toContain(token);
        expect(log).not.toContain('B'.repeat(43));
        expect(log).not.toContain(f.keys.recordings);
      } finally {
        await app.close();
      }
    }
  });
});
