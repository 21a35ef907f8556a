import type { NormalizedMessage } from '../../types.js';
import { decodeAction, isRecord, str } from '../shared.js';

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** One conversation per chat, and per forum topic in a forum supergroup. */
export const telegramSessionKey = (chatId: number | string, threadId?: number): string =>
  threadId === undefined ? String(chatId) : `${chatId}:${threadId}`;

const sessionOf = (message: Record<string, unknown>) => {
  const chat = isRecord(message.chat) ? message.chat : {};
  const chatId = num(chat.id);
  const threadId = message.is_topic_message === true ? num(message.message_thread_id) : undefined;
  return { chatId, threadId, chatType: str(chat.type) };
};

const fromOf = (from: unknown) => {
  const user = isRecord(from) ? from : {};
  return { userId: num(user.id), isBot: user.is_bot === true, username: str(user.username) };
};

/**
 * A Telegram Update to normalized messages: `message` with text (or a media caption) from a person,
 * and `callback_query` from an inline keyboard. Ignored: bots, edited messages, channel posts,
 * service messages (joins, pins...), and every other update kind.
 */
export const parseTelegramUpdate = (update: unknown, now: Date): NormalizedMessage[] => {
  if (!isRecord(update)) return [];
  if (isRecord(update.message)) {
    const message = update.message;
    const text = str(message.text) ?? str(message.caption);
    const from = fromOf(message.from);
    const { chatId, threadId, chatType } = sessionOf(message);
    const messageId = num(message.message_id);
    const date = num(message.date);
    if (text === undefined || from.isBot || from.userId === undefined) return [];
    if (chatId === undefined || messageId === undefined || date === undefined) return [];
    return [
      {
        externalMessageId: `${chatId}:${messageId}`,
        externalSessionKey: telegramSessionKey(chatId, threadId),
        text,
        metadata: {
          chatId,
          chatType,
          messageId,
          ...(threadId === undefined ? {} : { messageThreadId: threadId }),
          ...(from.username === undefined ? {} : { username: from.username }),
        },
        timestamp: new Date(date * 1000).toISOString(),
        channelUserId: String(from.userId),
      },
    ];
  }
  if (isRecord(update.callback_query)) {
    const query = update.callback_query;
    const id = str(query.id);
    const data = str(query.data);
    const from = fromOf(query.from);
    const message = isRecord(query.message) ? query.message : undefined;
    if (id === undefined || data === undefined || message === undefined || from.userId === undefined)
      return [];
    const { chatId, threadId, chatType } = sessionOf(message);
    if (chatId === undefined) return [];
    const keyboard = isRecord(message.reply_markup) ? message.reply_markup.inline_keyboard : undefined;
    const pressed = (Array.isArray(keyboard) ? keyboard.flat() : []).find(
      (b: unknown) => isRecord(b) && b.callback_data === data,
    ) as Record<string, unknown> | undefined;
    const label = pressed === undefined ? undefined : str(pressed.text);
    return [
      {
        externalMessageId: `callback:${id}`,
        externalSessionKey: telegramSessionKey(chatId, threadId),
        text: label ?? '',
        metadata: {
          chatId,
          chatType,
          callbackQueryId: id,
          ...(num(message.message_id) === undefined ? {} : { messageId: num(message.message_id) }),
          ...(threadId === undefined ? {} : { messageThreadId: threadId }),
          ...(from.username === undefined ? {} : { username: from.username }),
        },
        // A callback query carries no time of its own: the time it reached us stands in.
        timestamp: now.toISOString(),
        actionEvent: {
          ...decodeAction(data),
          // Telegram reports every inline keyboard press alike, select options included.
          type: 'button',
          ...(label === undefined ? {} : { title: label }),
        },
        channelUserId: String(from.userId),
      },
    ];
  }
  return [];
};

/** The bot id a bot token starts with (`123456:ABC...`): the connection identifier. */
export const telegramBotId = (botToken: string): string | null => /^(\d+):/.exec(botToken)?.[1] ?? null;
