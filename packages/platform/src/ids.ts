import { createHash, randomUUID } from 'node:crypto';

/** A random UUID (v4), the form of every event id. */
export const newId = (): string => randomUUID();

/**
 * A UUID (version 8, RFC 9562) derived from a namespace, a kind and a key: the same inputs give the
 * same id, so a job or event produced again (a retried job, a callback delivered twice) is recognised.
 */
export function derivedUuid(namespace: string, kind: string, key: string): string {
  const bytes = createHash('sha256')
    .update(JSON.stringify([namespace, kind, key]))
    .digest();
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
