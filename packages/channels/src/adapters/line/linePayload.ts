import type { NormalizedMessage } from '../../types.js';
import { decodeAction, isRecord, str } from '../shared.js';

/** Where a LINE event came from: a 1:1 chat with a user, a group chat or a multi-person room. */
export interface LineSource {
  sourceType: 'user' | 'group' | 'room';
  /** The conversation: the user id in a 1:1 chat, else the group or room id. */
  chatId: string;
  /** The member who acted; LINE can omit it in groups and rooms. */
  userId: string | undefined;
}

const sourceOf = (value: unknown): LineSource | null => {
  if (!isRecord(value)) return null;
  const userId = str(value.userId);
  switch (value.type) {
    case 'user':
      return userId === undefined ? null : { sourceType: 'user', chatId: userId, userId };
    case 'group': {
      const groupId = str(value.groupId);
      return groupId === undefined ? null : { sourceType: 'group', chatId: groupId, userId };
    }
    case 'room': {
      const roomId = str(value.roomId);
      return roomId === undefined ? null : { sourceType: 'room', chatId: roomId, userId };
    }
    default:
      return null;
  }
};

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

/** The time of an event in milliseconds, when it is one a Date can hold. */
const eventTime = (value: unknown): number | undefined => {
  const ms = num(value);
  return ms !== undefined && Math.abs(ms) <= 8.64e15 ? ms : undefined;
};

/**
 * One LINE webhook event to a normalized message, or null when it is not one the agent answers:
 * `message` events with `message.type: 'text'` and `postback` events. Events in standby mode
 * (another module channel owns the chat) carry no reply token and are not answered.
 */
const parseEvent = (event: unknown): NormalizedMessage | null => {
  if (!isRecord(event) || event.mode === 'standby') return null;
  const source = sourceOf(event.source);
  const timestamp = eventTime(event.timestamp);
  const webhookEventId = str(event.webhookEventId);
  if (source === null || timestamp === undefined || webhookEventId === undefined) return null;
  const replyToken = str(event.replyToken);
  const delivery = isRecord(event.deliveryContext) ? event.deliveryContext : {};
  const metadata: Record<string, unknown> = {
    sourceType: source.sourceType,
    chatId: source.chatId,
    ...(source.userId === undefined ? {} : { userId: source.userId }),
    // A one-time token valid for a short while after `eventTimestamp`; sendResponse decides whether it is still fresh.
    ...(replyToken === undefined ? {} : { replyToken }),
    eventTimestamp: timestamp,
    webhookEventId,
    isRedelivery: delivery.isRedelivery === true,
  };
  const common = {
    externalSessionKey: source.chatId,
    timestamp: new Date(timestamp).toISOString(),
    ...(source.userId === undefined ? {} : { channelUserId: source.userId }),
  };

  if (event.type === 'message') {
    const message = isRecord(event.message) ? event.message : {};
    const id = str(message.id);
    const text = str(message.text);
    if (message.type !== 'text' || id === undefined || text === undefined) return null;
    return { ...common, externalMessageId: id, text, metadata: { ...metadata, messageId: id } };
  }
  if (event.type === 'postback') {
    const data = isRecord(event.postback) ? str(event.postback.data) : undefined;
    if (data === undefined) return null;
    return {
      ...common,
      // A redelivered postback keeps its webhookEventId (it has no message id of its own).
      externalMessageId: webhookEventId,
      text: '',
      metadata,
      // LINE reports every postback alike, select options included.
      actionEvent: { ...decodeAction(data), type: 'button' },
    };
  }
  return null;
};

/**
 * A LINE Messaging API webhook body (`{ destination, events }`) to normalized messages: text
 * messages and postbacks. Ignored: follow, unfollow, join, leave, member events, unsend, other
 * message types (stickers, images...), standby-mode events, and the console's verification request
 * (empty `events`).
 */
export const parseLineWebhook = (body: unknown): NormalizedMessage[] => {
  if (!isRecord(body) || !Array.isArray(body.events)) return [];
  return body.events.map(parseEvent).filter((m): m is NormalizedMessage => m !== null);
};

/** The bot's user id (`destination`): the connection identifier of a LINE webhook body. */
export const lineDestination = (body: unknown): string | null => {
  const destination = isRecord(body) ? str(body.destination) : undefined;
  return destination === undefined || destination === '' ? null : destination;
};
