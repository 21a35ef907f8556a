import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createTelegramAdapter, verifyTelegramSecret } from './telegramAdapter.js';
import { telegramBotId } from './telegramPayload.js';
import { TELEGRAM_LIMITS, toTelegramOutput } from './telegramTransform.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');
const adapter = createTelegramAdapter({ now: () => NOW });
const connection = testConnection('telegram', '123456789', {
  botToken: '123456789:AAH-token',
  webhookSecret: 'webhook-secret_1',
});

const request = (update: unknown, secret: string | null = 'webhook-secret_1'): InboundRequest => ({
  headers: secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret },
  body: update,
  rawBody: Buffer.from(JSON.stringify(update)),
  url: 'https://parley.example/api/v1/channels/telegram/webhook/123456789',
  query: {},
});

// Shapes from the Telegram Bot API reference (Update, Message, CallbackQuery).
const person = { id: 1111111, is_bot: false, first_name: 'Ada', username: 'ada', language_code: 'en' };
const textUpdate = {
  update_id: 10000,
  message: {
    message_id: 1365,
    from: person,
    chat: { id: 1111111, first_name: 'Ada', username: 'ada', type: 'private' },
    date: 1441645532,
    text: '/start',
  },
};

describe('Telegram verifyRequest', () => {
  it('accepts the secret token header and refuses a wrong or missing one', () => {
    expect(adapter.verifyRequest(request(textUpdate), connection)).toBe(true);
    expect(adapter.verifyRequest(request(textUpdate, 'webhook-secret_2'), connection)).toBe(false);
    expect(adapter.verifyRequest(request(textUpdate, null), connection)).toBe(false);
    expect(adapter.verifyRequest(request(textUpdate, ''), { ...connection, credentials: {} })).toBe(false);
  });

  it('never throws and accepts only the exact token (property)', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), fc.string(), (header, secret) => {
        expect(verifyTelegramSecret(header, secret)).toBe(secret !== '' && header === secret);
      }),
    );
  });
});

describe('Telegram parseIncoming', () => {
  it('normalizes a private text message (spec 001 §2.1)', () => {
    expect(adapter.parseIncoming(request(textUpdate), connection)).toEqual([
      {
        externalMessageId: '1111111:1365',
        externalSessionKey: '1111111',
        text: '/start',
        metadata: { chatId: 1111111, chatType: 'private', messageId: 1365, username: 'ada' },
        timestamp: '2015-09-07T17:05:32.000Z',
        channelUserId: '1111111',
      },
    ]);
  });

  it('keys forum topics by chat and topic', () => {
    const update = {
      update_id: 10001,
      message: {
        message_id: 77,
        message_thread_id: 5,
        is_topic_message: true,
        from: person,
        chat: { id: -1001234567890, title: 'Support', is_forum: true, type: 'supergroup' },
        date: 1441645600,
        text: 'help',
      },
    };
    const [message] = adapter.parseIncoming(request(update), connection);
    expect(message?.externalSessionKey).toBe('-1001234567890:5');
    expect(message?.metadata).toMatchObject({
      chatId: -1001234567890,
      messageThreadId: 5,
      chatType: 'supergroup',
    });
  });

  it('gives an inline keyboard press as an action event', () => {
    const update = {
      update_id: 10002,
      callback_query: {
        id: '4382bfdwdsb323b2d9',
        from: person,
        chat_instance: '-7685746352',
        data: '["size","m"]',
        message: {
          message_id: 1366,
          from: { id: 123456789, is_bot: true, first_name: 'Parley', username: 'parley_bot' },
          chat: { id: 1111111, type: 'private' },
          date: 1441645540,
          text: 'Which size?',
          reply_markup: { inline_keyboard: [[{ text: 'Medium', callback_data: '["size","m"]' }]] },
        },
      },
    };
    expect(adapter.parseIncoming(request(update), connection)).toEqual([
      {
        externalMessageId: 'callback:4382bfdwdsb323b2d9',
        externalSessionKey: '1111111',
        text: 'Medium',
        metadata: {
          chatId: 1111111,
          chatType: 'private',
          callbackQueryId: '4382bfdwdsb323b2d9',
          messageId: 1366,
          username: 'ada',
        },
        timestamp: NOW.toISOString(),
        actionEvent: { actionId: 'size', value: 'm', type: 'button', title: 'Medium' },
        channelUserId: '1111111',
      },
    ]);
  });

  it('ignores bots, edits, channel posts, service messages and other updates', () => {
    const ignored = [
      { update_id: 1, message: { ...textUpdate.message, from: { id: 2, is_bot: true, first_name: 'Bot' } } },
      { update_id: 2, edited_message: { ...textUpdate.message, edit_date: 1441645600 } },
      {
        update_id: 3,
        channel_post: { message_id: 1, chat: { id: -100, type: 'channel' }, date: 1, text: 'news' },
      },
      {
        update_id: 4,
        message: {
          message_id: 2,
          from: person,
          chat: textUpdate.message.chat,
          date: 1,
          new_chat_members: [person],
        },
      },
      { update_id: 5, my_chat_member: { chat: textUpdate.message.chat } },
      'not json object',
    ];
    for (const update of ignored) expect(adapter.parseIncoming(request(update), connection)).toEqual([]);
  });

  it('reads the bot id from the token', () => {
    expect(telegramBotId('123456789:AAH-token')).toBe('123456789');
    expect(telegramBotId('garbage')).toBeNull();
  });
});

describe('Telegram transformOutput', () => {
  it('puts the keyboard on the last message: buttons three to a row, options one to a row', () => {
    const output = toTelegramOutput({
      text: 'Hi',
      actionSet: {
        prompt: 'Pick',
        elements: [
          ...['a', 'b', 'c', 'd'].map((id) => ({ type: 'button' as const, id, label: id.toUpperCase() })),
          { type: 'select', id: 'size', label: 'Size', options: [{ label: 'Small', value: 's' }] },
        ],
      },
    });
    expect(output).toEqual({
      messages: [
        {
          text: 'Hi\n\nPick',
          reply_markup: {
            inline_keyboard: [
              [
                { text: 'A', callback_data: 'a' },
                { text: 'B', callback_data: 'b' },
                { text: 'C', callback_data: 'c' },
              ],
              [{ text: 'D', callback_data: 'd' }],
              [{ text: 'Small', callback_data: '["size","s"]' }],
            ],
          },
        },
      ],
    });
  });

  it('keeps text within 4096 characters and callback data within 64 bytes (property)', () => {
    // Text inputs alone give no keyboard, and the last message must carry one.
    const replies = outgoingReplyArbitrary({ maxTextLength: 9000, types: ['button', 'select'] });
    fc.assert(
      fc.property(replies, (reply) => {
        const output = toTelegramOutput(reply);
        for (const m of output.messages) {
          expect(Array.from(m.text).length).toBeLessThanOrEqual(TELEGRAM_LIMITS.text);
          expect(m.text.length).toBeGreaterThan(0);
          for (const b of m.reply_markup?.inline_keyboard.flat() ?? []) {
            expect(Buffer.byteLength(b.callback_data)).toBeLessThanOrEqual(64);
            expect(Buffer.byteLength(b.callback_data)).toBeGreaterThan(0);
          }
        }
        if (reply.actionSet !== undefined) expect(output.messages.at(-1)?.reply_markup).toBeDefined();
      }),
    );
  });
});
