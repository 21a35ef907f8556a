import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertMediaKey, assertRange } from './mediaKey.js';
import {
  type ByteRange,
  type MediaObjectInfo,
  MediaObjectMissingError,
  MediaRangeNotSatisfiableError,
  type MediaReadResult,
  type MediaStorage,
} from './mediaStorage.js';

/** The file system keeps no content type: it follows from the key's extension. */
const CONTENT_TYPES: Record<string, string> = {
  flac: 'audio/flac',
  json: 'application/json',
  m4a: 'audio/mp4',
  mp3: 'audio/mpeg',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  wav: 'audio/wav',
  weba: 'audio/webm',
  webm: 'audio/webm',
};

export function contentTypeForKey(key: string): string | undefined {
  const base = key.slice(key.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? undefined : CONTENT_TYPES[base.slice(dot + 1).toLowerCase()];
}

/**
 * Media under one directory, one file per key. A write goes to a hidden temp file beside the target and
 * is renamed over it once complete and flushed, so a reader sees the old object or the new one, never a
 * partial one; a failed write leaves nothing behind.
 */
export function createFilesystemMediaStorage(dir: string): MediaStorage {
  const root = path.resolve(dir);
  const fileOf = (key: string) => {
    assertMediaKey(key);
    return path.join(root, ...key.split('/'));
  };
  const info = (key: string, bytes: number): MediaObjectInfo => {
    const contentType = contentTypeForKey(key);
    return contentType === undefined ? { bytes } : { bytes, contentType };
  };

  const head = async (key: string): Promise<MediaObjectInfo | null> => {
    const file = fileOf(key);
    try {
      const stats = await stat(file);
      return stats.isFile() ? info(key, stats.size) : null;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  };

  return {
    kind: 'filesystem',

    async put(key, body) {
      const file = fileOf(key);
      await mkdir(path.dirname(file), { recursive: true });
      const temp = path.join(
        path.dirname(file),
        `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`,
      );
      let bytes = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      try {
        const source = Buffer.isBuffer(body) ? Readable.from([body]) : (body as NodeJS.ReadableStream);
        await pipeline(source, counter, createWriteStream(temp, { flags: 'wx' }));
        const handle = await open(temp, 'r');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temp, file);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      return info(key, bytes);
    },

    head,

    async read(key, range?: ByteRange): Promise<MediaReadResult> {
      if (range !== undefined) assertRange(range);
      // Open first, then stat the open file: a delete racing this read cannot leave a stream that fails later.
      const handle = await open(fileOf(key), 'r').catch((err: unknown) => {
        throw isNotFound(err) ? new MediaObjectMissingError(key) : err;
      });
      try {
        const stats = await handle.stat();
        if (!stats.isFile()) throw new MediaObjectMissingError(key);
        const found = info(key, stats.size);
        if (range === undefined) return { stream: handle.createReadStream(), info: found };
        if (range.start >= found.bytes) throw new MediaRangeNotSatisfiableError(key, found.bytes);
        const served = { start: range.start, end: Math.min(range.end, found.bytes - 1) };
        return { stream: handle.createReadStream(served), info: found, range: served };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}

function isNotFound(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
