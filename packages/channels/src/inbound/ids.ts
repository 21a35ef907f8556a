import { createHash } from 'node:crypto';

/**
 * A UUID (version 8, RFC 9562) derived from a kind and a key: the same inputs give the same id,
 * so a job or event produced again (a retried job, a webhook delivered twice) is recognised.
 */
export function derivedUuid(kind: string, key: string): string {
  const bytes = createHash('sha256')
    .update(JSON.stringify(['parley-channels', kind, key]))
    .digest();
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The inbound job of one external message of one connection. */
export const inboundJobId = (connectionId: string, externalMessageId: string): string =>
  derivedUuid('inbound-job', JSON.stringify([connectionId, externalMessageId]));

/** The send job of one reply. */
export const sendJobId = (connectionId: string, replyMessageId: string): string =>
  derivedUuid('send-job', JSON.stringify([connectionId, replyMessageId]));

/** The delivery outcome event (sent or failed, whichever comes first) of one reply. */
export const deliveryEventId = (connectionId: string, replyMessageId: string): string =>
  derivedUuid('delivery-outcome', JSON.stringify([connectionId, replyMessageId]));
