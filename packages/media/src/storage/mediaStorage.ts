import { ParleyError } from '@parley/platform/errors';
/** How a browser should present a media object: play it in place, or save it. */
export type Disposition = 'inline' | 'attachment';

/** The object a key names does not exist (never written, deleted, or lost). */
export class MediaObjectMissingError extends ParleyError {
  override readonly name = 'MediaObjectMissingError';
  constructor(readonly key: string) {
    super('MEDIA_OBJECT_MISSING', 500, 'media object missing');
  }
}

/** The requested byte range starts at or beyond the end of the object (HTTP 416). */
export class MediaRangeNotSatisfiableError extends ParleyError {
  override readonly name = 'MediaRangeNotSatisfiableError';
  constructor(
    readonly key: string,
    /** Size of the whole object, for `Content-Range: bytes *\/<bytes>`. */
    readonly bytes: number,
  ) {
    super('MEDIA_RANGE_NOT_SATISFIABLE', 500, 'requested range not satisfiable');
  }
}

export interface MediaObjectInfo {
  /** Size of the whole object (also when only a range of it is read). */
  bytes: number;
  contentType?: string;
}

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface PresignGetOptions {
  expiresInSeconds: number;
  disposition: Disposition;
  fileName?: string;
  contentType?: string;
}

export interface MediaReadResult {
  stream: NodeJS.ReadableStream;
  info: MediaObjectInfo;
  /** The range actually served (end clamped to the object's last byte); undefined: the whole object. */
  range?: ByteRange;
}

export interface MediaStorage {
  readonly kind: 'filesystem' | 's3';
  /** Writes the whole object (atomically on the filesystem: temp file + rename). */
  put(
    key: string,
    body: Buffer | NodeJS.ReadableStream,
    options?: { contentType?: string },
  ): Promise<MediaObjectInfo>;
  /** null when the object does not exist. */
  head(key: string): Promise<MediaObjectInfo | null>;
  /**
   * Streams the object or an inclusive byte range of it. An `end` beyond the object is clamped to its
   * last byte; a `start` at or beyond its end throws MediaRangeNotSatisfiableError. Throws
   * MediaObjectMissingError when the object does not exist.
   */
  read(key: string, range?: ByteRange): Promise<MediaReadResult>;
  /** Idempotent: deleting a missing object succeeds. */
  delete(key: string): Promise<void>;
  /** s3 only: a pre-signed GET URL with ResponseContentDisposition per disposition (+ file name). */
  presignGet?(key: string, options: PresignGetOptions): Promise<string>;
}
