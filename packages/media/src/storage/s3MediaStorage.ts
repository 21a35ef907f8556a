import { PassThrough, Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { contentDisposition } from '../contentDisposition.js';
import { assertMediaKey, assertRange } from './mediaKey.js';
import {
  type MediaObjectInfo,
  MediaObjectMissingError,
  MediaRangeNotSatisfiableError,
  type MediaStorage,
} from './mediaStorage.js';

export interface S3MediaStorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, s3rver, R2…); unset: AWS. */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Static credentials; unset: the AWS SDK's default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** SigV4 pre-signed URLs live at most seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * Media in one S3 bucket. Checksums are computed and validated only where S3 requires them: many
 * S3-compatible stores reject the SDK's newer default (CRC32 trailers), and S3 itself checks the body's
 * integrity with the signature anyway.
 */
export function createS3MediaStorage(options: S3MediaStorageOptions): MediaStorage {
  const client = new S3Client({
    region: options.region,
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    forcePathStyle: options.forcePathStyle ?? false,
    ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = options.bucket;

  return {
    kind: 's3',

    async put(key, body, putOptions) {
      assertMediaKey(key);
      // PutObject needs the length up front; without @aws-sdk/lib-storage a stream is buffered first.
      const buffer = Buffer.isBuffer(body) ? body : await collect(body);
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: buffer,
          ContentLength: buffer.length,
          ...(putOptions?.contentType === undefined ? {} : { ContentType: putOptions.contentType }),
        }),
      );
      return withType(buffer.length, putOptions?.contentType);
    },

    async head(key) {
      assertMediaKey(key);
      try {
        const out = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return withType(out.ContentLength ?? 0, out.ContentType);
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async read(key, range) {
      assertMediaKey(key);
      if (range !== undefined) assertRange(range);
      try {
        const out = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: key,
            ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
          }),
        );
        const stream = out.Body as Readable | undefined;
        if (stream === undefined) throw new MediaObjectMissingError(key);
        if (range === undefined) return { stream, info: withType(out.ContentLength ?? 0, out.ContentType) };
        const served = parseContentRange(out.ContentRange);
        if (served === null) {
          // A store that ignored the Range header sent the whole object: serve it as such.
          return { stream, info: withType(out.ContentLength ?? 0, out.ContentType) };
        }
        const wanted = { start: range.start, end: Math.min(range.end, served.bytes - 1) };
        if (served.range.start !== wanted.start || served.range.end < wanted.end) {
          stream.destroy();
          throw new Error(
            `storage served bytes ${served.range.start}-${served.range.end} for ${wanted.start}-${wanted.end}`,
          );
        }
        // Some S3-compatible stores (s3rver for `bytes=0-0`) serve more than asked: cut the excess.
        const trimmed = served.range.end > wanted.end ? take(stream, wanted.end - wanted.start + 1) : stream;
        return { stream: trimmed, info: withType(served.bytes, out.ContentType), range: wanted };
      } catch (err) {
        if (isNotFound(err)) throw new MediaObjectMissingError(key);
        if (statusOf(err) === 416) {
          const found = await this.head(key);
          if (found === null) throw new MediaObjectMissingError(key);
          throw new MediaRangeNotSatisfiableError(key, found.bytes);
        }
        throw err;
      }
    },

    async delete(key) {
      assertMediaKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async presignGet(key, presign) {
      assertMediaKey(key);
      const { expiresInSeconds } = presign;
      if (
        !Number.isSafeInteger(expiresInSeconds) ||
        expiresInSeconds < 1 ||
        expiresInSeconds > MAX_PRESIGN_SECONDS
      ) {
        throw new RangeError(`expiresInSeconds must be 1..${MAX_PRESIGN_SECONDS}`);
      }
      const command = new GetObjectCommand({
        Bucket,
        Key: key,
        ResponseContentDisposition: contentDisposition(presign.disposition, presign.fileName ?? null),
        ...(presign.contentType === undefined ? {} : { ResponseContentType: presign.contentType }),
      });
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds });
    },
  };
}

function withType(bytes: number, contentType: string | undefined): MediaObjectInfo {
  return contentType === undefined ? { bytes } : { bytes, contentType };
}

async function collect(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of Readable.from(stream as AsyncIterable<Buffer | string>)) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  return Buffer.concat(chunks);
}

/** The first `count` bytes of a stream; the rest is not read (the source is destroyed). */
function take(source: Readable, count: number): Readable {
  let left = count;
  const limited = new PassThrough();
  source.on('data', (chunk: Buffer) => {
    if (left <= 0) return;
    const part = chunk.length > left ? chunk.subarray(0, left) : chunk;
    left -= part.length;
    limited.write(part);
    if (left <= 0) {
      limited.end();
      source.destroy();
    }
  });
  source.on('end', () => limited.end());
  source.on('error', (err) => limited.destroy(err));
  limited.on('close', () => source.destroy());
  return limited;
}

/** `bytes 0-9/100` → the served range and the whole object's size. */
export function parseContentRange(
  header: string | undefined,
): { range: { start: number; end: number }; bytes: number } | null {
  const match = header === undefined ? null : /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header.trim());
  if (match === null) return null;
  return { range: { start: Number(match[1]), end: Number(match[2]) }, bytes: Number(match[3]) };
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || statusOf(err) === 404;
}
