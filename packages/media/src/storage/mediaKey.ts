/**
 * Keys are relative paths of safe segments, so that the filesystem adapter can never be steered outside
 * its directory and S3 keys need no escaping: `[A-Za-z0-9._-]` segments joined by `/`, none empty,
 * none starting with a dot (no `..`, no hidden temp-file names).
 */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 1024;

export function isValidMediaKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  return key.split('/').every((segment) => SEGMENT.test(segment));
}

export function assertMediaKey(key: string): void {
  if (!isValidMediaKey(key)) throw new TypeError(`invalid media key: ${JSON.stringify(key.slice(0, 200))}`);
}

export function assertRange(range: { start: number; end: number }): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeError(`invalid byte range ${start}-${end}`);
  }
}
