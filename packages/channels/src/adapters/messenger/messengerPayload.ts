import type { NormalizedMessage } from '../../types.js';
import { decodeAction, isRecord, str } from '../shared.js';

/**
 * Meta messaging webhooks (Messenger object `page`, Instagram object `instagram`): each
 * `entry[].messaging[]` event to a normalized message (only events of the entry `onlyId` when
 * given). Kept: `message` with text (a quick reply tap as an action event) and `postback` (a button
 * template tap). Ignored: echoes of the page's own messages (`is_echo`), `delivery`, `read`,
 * reactions, edits, deleted or unsupported messages and attachments without text.
 */
export const parseMetaMessaging = (
  payload: unknown,
  object: 'page' | 'instagram',
  onlyId?: string,
): NormalizedMessage[] => {
  if (!isRecord(payload) || payload.object !== object) return [];
  const out: NormalizedMessage[] = [];
  for (const entry of Array.isArray(payload.entry) ? payload.entry : []) {
    if (!isRecord(entry)) continue;
    const entryId = str(entry.id);
    // One app webhook can carry several pages / accounts; a connection is one.
    if (onlyId !== undefined && entryId !== onlyId) continue;
    for (const event of Array.isArray(entry.messaging) ? entry.messaging : []) {
      const parsed = isRecord(event) ? parseEvent(event) : null;
      if (parsed !== null) out.push({ ...parsed, metadata: { ...parsed.metadata, entryId } });
    }
  }
  return out;
};

const idOf = (value: unknown): string | undefined => (isRecord(value) ? str(value.id) : undefined);

const parseEvent = (event: Record<string, unknown>): NormalizedMessage | null => {
  const sender = idOf(event.sender);
  const recipient = idOf(event.recipient);
  const millis = typeof event.timestamp === 'number' ? event.timestamp : Number.NaN;
  if (sender === undefined || !Number.isFinite(millis)) return null;
  const timestamp = new Date(millis).toISOString();
  const base = { externalSessionKey: sender, timestamp, channelUserId: sender };
  const metadata = { senderId: sender, recipientId: recipient };
  if (isRecord(event.message)) {
    const message = event.message;
    const mid = str(message.mid);
    const text = str(message.text);
    if (message.is_echo === true || message.is_deleted === true || message.is_unsupported === true)
      return null;
    if (mid === undefined || text === undefined) return null;
    const quickReply = isRecord(message.quick_reply) ? str(message.quick_reply.payload) : undefined;
    return {
      ...base,
      externalMessageId: mid,
      text,
      metadata: {
        ...metadata,
        messageId: mid,
        messageType: quickReply === undefined ? 'text' : 'quick_reply',
      },
      ...(quickReply === undefined
        ? {}
        : { actionEvent: { ...decodeAction(quickReply), type: 'button' as const, title: text } }),
    };
  }
  if (isRecord(event.postback)) {
    const postback = event.postback;
    const payload = str(postback.payload);
    if (payload === undefined) return null;
    const title = str(postback.title) ?? '';
    // Older postbacks carry no mid: sender and time identify the tap.
    const mid = str(postback.mid);
    return {
      ...base,
      externalMessageId: mid ?? `postback:${sender}:${millis}`,
      text: title,
      metadata: { ...metadata, ...(mid === undefined ? {} : { messageId: mid }), messageType: 'postback' },
      actionEvent: { ...decodeAction(payload), type: 'button', title },
    };
  }
  return null;
};

/** The connection identifier of a webhook body: the page (or Instagram account) id of the first entry. */
export const metaEntryId = (payload: unknown, object: 'page' | 'instagram'): string | null => {
  if (!isRecord(payload) || payload.object !== object || !Array.isArray(payload.entry)) return null;
  for (const entry of payload.entry) {
    const id = isRecord(entry) ? str(entry.id) : undefined;
    if (id !== undefined) return id;
  }
  return null;
};

/** Messenger webhook (object `page`) to normalized messages; see parseMetaMessaging. */
export const parseMessengerPayload = (payload: unknown, onlyPageId?: string): NormalizedMessage[] =>
  parseMetaMessaging(payload, 'page', onlyPageId);
