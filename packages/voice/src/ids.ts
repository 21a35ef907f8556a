import { createHash } from 'node:crypto';

/**
 * A UUID (version 8, RFC 9562) derived from a kind and a key: a callback delivered twice gets the
 * same event id, so the log records it once.
 */
export function derivedUuid(kind: string, key: string): string {
  const bytes = createHash('sha256')
    .update(JSON.stringify(['parley-voice', kind, key]))
    .digest();
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
