import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createTelegramAdapter, registerTelegramWebhook } from './telegramAdapter.js';

const connection = testConnection('telegram', '123456789', {
  botToken: '123456789:AAH-token',
  webhookSecret: 'webhook-secret_1',
});
const adapter = createTelegramAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const ok = (result: unknown) => ({ status: 200, body: { ok: true, result } });

describe('Telegram against a stand-in Bot API', () => {
  it('answers the callback query, then sendMessage with the inline keyboard into the topic', async () => {
    const standIn = await startStandIn((r) =>
      r.path.endsWith('/sendMessage') ? ok({ message_id: 1400 }) : ok(true),
    );
    closers.push(standIn.close);
    const reply = {
      text: 'Which size?',
      actionSet: { elements: [{ type: 'button' as const, id: 'm', label: 'Medium', value: 'size-m' }] },
    };
    const result = await adapter.sendResponse(
      {
        externalSessionKey: '-1001234567890:5',
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: { chatId: -1001234567890, messageThreadId: 5, callbackQueryId: 'cbq1' },
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: standIn.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: '-1001234567890:1400' });
    expect(standIn.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/bot123456789:AAH-token/answerCallbackQuery', { callback_query_id: 'cbq1' }],
      [
        'POST',
        '/bot123456789:AAH-token/sendMessage',
        {
          chat_id: -1001234567890,
          message_thread_id: 5,
          text: 'Which size?',
          reply_markup: { inline_keyboard: [[{ text: 'Medium', callback_data: '["m","size-m"]' }]] },
        },
      ],
    ]);
  });

  it('reports 429 as retryable and 403 (bot blocked) as permanent, without the token', async () => {
    const answers = [
      {
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 5',
          parameters: { retry_after: 5 },
        },
      },
      {
        status: 403,
        body: { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' },
      },
    ];
    const standIn = await startStandIn(() => answers.shift() ?? ok(true));
    closers.push(standIn.close);
    const send = () =>
      adapter.sendResponse(
        { externalSessionKey: '1111111', reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        { fetch, apiBaseUrl: standIn.baseUrl },
      );
    const throttled = await send();
    expect(throttled).toEqual({
      ok: false,
      retryable: true,
      status: 429,
      error: 'telegram 429: Too Many Requests: retry after 5',
    });
    const blocked = await send();
    expect(blocked).toMatchObject({ ok: false, retryable: false, status: 403 });
    expect(JSON.stringify(blocked)).not.toContain('AAH-token');
    expect(standIn.requests[0]?.body).toEqual({ chat_id: '1111111', text: 'hi' });
  });

  it('sends typing with sendChatAction and registers the webhook with setWebhook', async () => {
    const standIn = await startStandIn(() => ok(true));
    closers.push(standIn.close);
    const http = { fetch, apiBaseUrl: standIn.baseUrl };
    await adapter.sendTypingIndicator?.(connection, '1111111', { chatId: 1111111 }, http);
    const registered = await registerTelegramWebhook(
      connection,
      'https://parley.example/api/v1/channels/telegram/webhook/123456789',
      http,
    );
    expect(registered).toEqual({ ok: true });
    expect(standIn.requests.map((r) => [r.path, r.body])).toEqual([
      ['/bot123456789:AAH-token/sendChatAction', { chat_id: 1111111, action: 'typing' }],
      [
        '/bot123456789:AAH-token/setWebhook',
        {
          url: 'https://parley.example/api/v1/channels/telegram/webhook/123456789',
          secret_token: 'webhook-secret_1',
          allowed_updates: ['message', 'callback_query'],
        },
      ],
    ]);
  });
});
