import { afterAll, describe, expect, it } from 'vitest';
import { freshKey, mediaStorageContract } from '../testing/mediaStorageContract.js';
import { startS3rver } from '../testing/startS3rver.js';
import { createMediaStorage } from './createMediaStorage.js';
import { createS3MediaStorage, parseContentRange } from './s3MediaStorage.js';

// A real S3-compatible server (s3rver) on a free port, started by this file.
const s3 = await startS3rver();
afterAll(() => s3.stop());
const storage = createS3MediaStorage(s3.storageOptions);

mediaStorageContract('s3', () => storage);

describe('s3 media storage', () => {
  const body = Buffer.from('RIFF....WAVEfmt fake audio bytes');

  it('pre-signs a GET that plain fetch can download, with the asked Content-Disposition', async () => {
    const key = freshKey();
    await storage.put(key, body, { contentType: 'audio/wav' });
    const url = await storage.presignGet!(key, {
      expiresInSeconds: 60,
      disposition: 'attachment',
      fileName: 'Anruf mit Müller "1".wav',
      contentType: 'audio/wav',
    });
    expect(url.startsWith(`${s3.endpoint}/`)).toBe(true);
    expect(new URL(url).searchParams.get('X-Amz-Expires')).toBe('60');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Anruf mit Muller _1_.wav"; filename*=UTF-8''Anruf%20mit%20M%C3%BCller%20%221%22.wav`,
    );
  });

  it('pre-signs inline without a file name, and honours Range on the signed URL', async () => {
    const key = freshKey();
    await storage.put(key, body, { contentType: 'audio/wav' });
    const url = await storage.presignGet!(key, { expiresInSeconds: 900, disposition: 'inline' });
    const response = await fetch(url, { headers: { Range: 'bytes=0-3' } });
    expect(response.status).toBe(206);
    expect(await response.text()).toBe('RIFF');
    expect(response.headers.get('content-disposition')).toBe('inline');
  });

  // s3rver does not verify SigV4 signatures (real S3 does), but it does enforce their expiry.
  it('a signed URL stops working once expired', async () => {
    const key = freshKey();
    await storage.put(key, body);
    const url = await storage.presignGet!(key, { expiresInSeconds: 1, disposition: 'inline' });
    expect((await fetch(url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await fetch(url)).status).toBe(403);
  });

  it('refuses expiries outside 1 s .. 7 days', async () => {
    const key = freshKey();
    for (const expiresInSeconds of [0, -1, 1.5, 7 * 24 * 3600 + 1]) {
      await expect(
        storage.presignGet!(key, { expiresInSeconds, disposition: 'inline' }),
      ).rejects.toBeInstanceOf(RangeError);
    }
  });

  it('is what createMediaStorage builds for MEDIA_STORAGE=s3', async () => {
    const configured = createMediaStorage({
      MEDIA_STORAGE: 's3',
      MEDIA_DIR: undefined,
      PARLEY_DATA_DIR: '.parley',
      S3_BUCKET: s3.storageOptions.bucket,
      S3_REGION: 'us-east-1',
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: true,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    });
    expect(configured.kind).toBe('s3');
    const key = freshKey();
    await configured.put(key, body);
    expect((await storage.head(key))?.bytes).toBe(body.length);
  });

  it('parses Content-Range', () => {
    expect(parseContentRange('bytes 2-5/100')).toEqual({ range: { start: 2, end: 5 }, bytes: 100 });
    expect(parseContentRange('bytes */100')).toBeNull();
    expect(parseContentRange(undefined)).toBeNull();
  });
});
