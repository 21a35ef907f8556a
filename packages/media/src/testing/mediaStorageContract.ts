import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { recordingMediaKey } from '../recordingMediaKey.js';
import {
  MediaObjectMissingError,
  MediaRangeNotSatisfiableError,
  type MediaStorage,
} from '../storage/mediaStorage.js';

export async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks);
}

let counter = 0;
export function freshKey(extension = 'wav'): string {
  counter += 1;
  return recordingMediaKey({
    projectId: `p_${process.pid}`,
    recordingId: `rec_${Date.now().toString(36)}_${counter}`,
    objectIndex: counter % 3,
    extension,
  });
}

/** What every MediaStorage adapter must do; run from each adapter's spec file. */
export function mediaStorageContract(name: string, storage: () => MediaStorage): void {
  const body = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));

  describe(`${name} media storage`, () => {
    it('puts, heads and reads back a buffer', async () => {
      const key = freshKey();
      const put = await storage().put(key, body, { contentType: 'audio/wav' });
      expect(put).toEqual({ bytes: 1000, contentType: 'audio/wav' });
      expect(await storage().head(key)).toEqual({ bytes: 1000, contentType: 'audio/wav' });
      const read = await storage().read(key);
      expect(read.info.bytes).toBe(1000);
      expect(read.range).toBeUndefined();
      expect((await readAll(read.stream)).equals(body)).toBe(true);
    });

    it('puts a stream', async () => {
      const key = freshKey();
      const chunks = [body.subarray(0, 10), body.subarray(10, 500), body.subarray(500)];
      const put = await storage().put(key, Readable.from(chunks));
      expect(put.bytes).toBe(1000);
      expect((await readAll((await storage().read(key)).stream)).equals(body)).toBe(true);
    });

    it('replaces an object written again under the same key', async () => {
      const key = freshKey();
      await storage().put(key, Buffer.from('first version, longer'));
      await storage().put(key, Buffer.from('second'));
      expect((await storage().head(key))?.bytes).toBe(6);
      expect((await readAll((await storage().read(key)).stream)).toString()).toBe('second');
    });

    it('reads inclusive byte ranges, clamping the end to the last byte', async () => {
      const key = freshKey();
      await storage().put(key, body);
      const first = await storage().read(key, { start: 0, end: 0 });
      expect([...(await readAll(first.stream))]).toEqual([0]);
      expect(first.range).toEqual({ start: 0, end: 0 });
      expect(first.info.bytes).toBe(1000);

      const middle = await storage().read(key, { start: 250, end: 259 });
      expect((await readAll(middle.stream)).equals(body.subarray(250, 260))).toBe(true);
      expect(middle.range).toEqual({ start: 250, end: 259 });
      expect(middle.info.bytes).toBe(1000);

      const tail = await storage().read(key, { start: 990, end: 5000 });
      expect((await readAll(tail.stream)).equals(body.subarray(990))).toBe(true);
      expect(tail.range).toEqual({ start: 990, end: 999 });
    });

    it('refuses a range starting at or past the end, and malformed ranges', async () => {
      const key = freshKey();
      await storage().put(key, body);
      const past = await storage()
        .read(key, { start: 1000, end: 1200 })
        .catch((err: unknown) => err);
      expect(past).toBeInstanceOf(MediaRangeNotSatisfiableError);
      expect((past as MediaRangeNotSatisfiableError).bytes).toBe(1000);
      await expect(storage().read(key, { start: 5, end: 4 })).rejects.toBeInstanceOf(RangeError);
      await expect(storage().read(key, { start: -1, end: 4 })).rejects.toBeInstanceOf(RangeError);
    });

    it('reports a missing object: head null, read MediaObjectMissingError', async () => {
      const key = freshKey();
      expect(await storage().head(key)).toBeNull();
      await expect(storage().read(key)).rejects.toBeInstanceOf(MediaObjectMissingError);
      await expect(storage().read(key, { start: 0, end: 1 })).rejects.toBeInstanceOf(MediaObjectMissingError);
    });

    it('deletes idempotently', async () => {
      const key = freshKey();
      await storage().put(key, body);
      await storage().delete(key);
      expect(await storage().head(key)).toBeNull();
      await expect(storage().read(key)).rejects.toBeInstanceOf(MediaObjectMissingError);
      await storage().delete(key);
      await storage().delete(freshKey());
    });

    it('puts an empty object', async () => {
      const key = freshKey();
      expect((await storage().put(key, Buffer.alloc(0))).bytes).toBe(0);
      expect((await storage().head(key))?.bytes).toBe(0);
      expect((await readAll((await storage().read(key)).stream)).length).toBe(0);
    });

    it('rejects keys that could escape the store', async () => {
      for (const key of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '.hidden', 'a/.tmp', '', 'a b']) {
        await expect(storage().put(key, body)).rejects.toBeInstanceOf(TypeError);
        await expect(storage().head(key)).rejects.toBeInstanceOf(TypeError);
        await expect(storage().read(key)).rejects.toBeInstanceOf(TypeError);
        await expect(storage().delete(key)).rejects.toBeInstanceOf(TypeError);
      }
    });
  });
}
