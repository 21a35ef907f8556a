import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { freshKey, mediaStorageContract, readAll } from '../testing/mediaStorageContract.js';
import { contentTypeForKey, createFilesystemMediaStorage } from './filesystemMediaStorage.js';

const dir = await mkdtemp(path.join(tmpdir(), 'parley-media-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const storage = createFilesystemMediaStorage(dir);

mediaStorageContract('filesystem', () => storage);

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('filesystem media storage', () => {
  it('keeps each key as a file under its directory', async () => {
    const key = freshKey('mp3');
    await storage.put(key, Buffer.from('abc'));
    expect(await filesUnder(dir)).toContain(path.join(dir, ...key.split('/')));
    expect(storage.kind).toBe('filesystem');
  });

  it('derives the content type from the extension', async () => {
    const key = freshKey('mp3');
    expect(await storage.put(key, Buffer.from('abc'), { contentType: 'audio/x-whatever' })).toEqual({
      bytes: 3,
      contentType: 'audio/mpeg',
    });
    expect(contentTypeForKey('recordings/p/r/0.WAV')).toBe('audio/wav');
    expect(contentTypeForKey('recordings/p/r/0')).toBeUndefined();
    expect(contentTypeForKey('recordings/p.x/r/0')).toBeUndefined();
    const bare = 'recordings/p/r/7';
    expect(await storage.put(bare, Buffer.from('abc'))).toEqual({ bytes: 3 });
  });

  it('a write that fails midway leaves the previous object and no temp file', async () => {
    const key = freshKey();
    await storage.put(key, Buffer.from('complete'));
    const before = await filesUnder(dir);
    const failing = new Readable({
      read() {
        this.push(Buffer.from('partial'));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(storage.put(key, failing)).rejects.toThrow('connection reset');
    expect((await readAll((await storage.read(key)).stream)).toString()).toBe('complete');
    expect(await filesUnder(dir)).toEqual(before);
  });

  it('concurrent writes of one key leave one whole version', async () => {
    const key = freshKey();
    const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(10_000 + i, i));
    await Promise.all(versions.map((v) => storage.put(key, v)));
    const stored = await readAll((await storage.read(key)).stream);
    expect(versions.some((v) => v.equals(stored))).toBe(true);
    expect((await filesUnder(path.join(dir, ...key.split('/').slice(0, -1)))).length).toBe(1);
  });

  it('a directory where a key is expected is a missing object', async () => {
    const key = freshKey();
    await storage.put(`${key}/child`, Buffer.from('x'));
    expect(await storage.head(key)).toBeNull();
    await expect(storage.read(key)).rejects.toThrow('media object missing');
  });
});
