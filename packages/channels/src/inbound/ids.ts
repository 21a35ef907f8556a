import { derivedUuid as platformDerivedUuid } from '@parley/platform';

/**
 * A UUID (version 8, RFC 9562) derived from a kind and a key: the same inputs give the same id,
 * so a job or event produced again (a retried job, a webhook delivered twice) is recognised.
 */
export const derivedUuid = (kind: string, key: string): string =>
  platformDerivedUuid('parley-channels', kind, key);

/** The inbound job of one external message of one connection. */
export const inboundJobId = (connectionId: string, externalMessageId: string): string =>
  derivedUuid('inbound-job', JSON.stringify([connectionId, externalMessageId]));

/** The send job of one reply. */
export const sendJobId = (connectionId: string, replyMessageId: string): string =>
  derivedUuid('send-job', JSON.stringify([connectionId, replyMessageId]));

/** The delivery outcome event (sent or failed, whichever comes first) of one reply. */
export const deliveryEventId = (connectionId: string, replyMessageId: string): string =>
  derivedUuid('delivery-outcome', JSON.stringify([connectionId, replyMessageId]));
