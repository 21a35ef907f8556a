import type { NormalizedMessage } from '../../types.js';
import { decodeAction, isRecord, str } from '../shared.js';

/** An ISO 8601 time of the payload, or `fallback` when it is missing or not a valid date. */
const isoTime = (value: unknown, fallback: string | undefined): string | undefined => {
  const text = str(value);
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? fallback : new Date(ms).toISOString();
};

const record = (value: unknown): Record<string, unknown> => (isRecord(value) ? value : {});

/**
 * A `conversation:message` from the user: its text (a reply button tap carries the button's
 * payload in `content.payload` and becomes an action). Business-authored messages (the bot's own,
 * echoed back) and content without text (images, files, locations without a caption) are ignored.
 */
const parseMessage = (
  event: Record<string, unknown>,
  createdAt: string | undefined,
): NormalizedMessage | null => {
  const payload = record(event.payload);
  const conversationId = str(record(payload.conversation).id);
  const message = record(payload.message);
  const author = record(message.author);
  const content = record(message.content);
  const id = str(message.id);
  const text = str(content.text);
  const userId = str(author.userId);
  if (author.type !== 'user' || conversationId === undefined || id === undefined || userId === undefined)
    return null;
  if (text === undefined || text.trim() === '') return null;
  const timestamp = isoTime(message.received, createdAt);
  if (timestamp === undefined) return null;
  const displayName = str(author.displayName);
  const sourceType = str(record(message.source).type);
  const replyPayload = str(content.payload);
  return {
    externalMessageId: id,
    externalSessionKey: conversationId,
    text,
    metadata: {
      conversationId,
      userId,
      messageId: id,
      ...(displayName === undefined ? {} : { displayName }),
      ...(sourceType === undefined ? {} : { sourceType }),
    },
    timestamp,
    ...(replyPayload === undefined
      ? {}
      : { actionEvent: { ...decodeAction(replyPayload), type: 'button' as const, title: text } }),
    channelUserId: userId,
  };
};

/** A `conversation:postback` (a postback button pressed): an action, its button text as the text. */
const parsePostback = (
  event: Record<string, unknown>,
  eventId: string,
  createdAt: string | undefined,
): NormalizedMessage | null => {
  const payload = record(event.payload);
  const conversationId = str(record(payload.conversation).id);
  const postback = record(payload.postback);
  const data = str(postback.payload);
  const userId = str(record(payload.user).id);
  if (conversationId === undefined || data === undefined || createdAt === undefined) return null;
  const actionName = str(postback.actionName);
  const sourceType = str(record(payload.source).type);
  return {
    externalMessageId: `postback:${eventId}`,
    externalSessionKey: conversationId,
    text: actionName ?? '',
    metadata: {
      conversationId,
      ...(userId === undefined ? {} : { userId }),
      ...(sourceType === undefined ? {} : { sourceType }),
    },
    timestamp: createdAt,
    actionEvent: {
      ...decodeAction(data),
      type: 'button',
      ...(actionName === undefined ? {} : { title: actionName }),
    },
    ...(userId === undefined ? {} : { channelUserId: userId }),
  };
};

/**
 * A Sunshine Conversations v2 webhook body (`{ app, webhook, events }`) to normalized messages:
 * user text messages and postbacks. Every other event type (conversation:create, read, typing,
 * delivery events...) is ignored.
 */
export const parseZendeskWebhook = (body: unknown): NormalizedMessage[] => {
  if (!isRecord(body) || !Array.isArray(body.events)) return [];
  const messages: NormalizedMessage[] = [];
  for (const event of body.events) {
    if (!isRecord(event)) continue;
    const eventId = str(event.id);
    const createdAt = isoTime(event.createdAt, undefined);
    const parsed =
      event.type === 'conversation:message'
        ? parseMessage(event, createdAt)
        : event.type === 'conversation:postback' && eventId !== undefined
          ? parsePostback(event, eventId, createdAt)
          : null;
    if (parsed !== null) messages.push(parsed);
  }
  return messages;
};

/** The app id (`app.id`): the connection identifier of a webhook body. */
export const zendeskAppId = (body: unknown): string | null => {
  const id = isRecord(body) ? str(record(body.app).id) : undefined;
  return id === undefined || id === '' ? null : id;
};
