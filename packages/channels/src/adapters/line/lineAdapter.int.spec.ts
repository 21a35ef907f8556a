import { afterEach, describe, expect, it } from 'vitest';
import {
  type RecordedRequest,
  type StandInReply,
  startStandIn,
  testConnection,
} from '../../testing/standInServer.js';
import { createLineAdapter, LINE_REPLY_TOKEN_TTL_MS, lineRetryKey } from './lineAdapter.js';

const USER_ID = 'U4af4980629a1b2c3d4e5f60718293a4b';
const GROUP_ID = 'Ca56f94637c0123456789abcdef012345';
const EVENT_TIME = 1_763_719_200_000;
const connection = testConnection('line', 'U0123456789abcdef0123456789abcdef', {
  channelAccessToken: 'line-access-token',
  channelSecret: 'line-secret',
});
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const sent = (id: string) => ({ status: 200, body: { sentMessages: [{ id, quoteToken: 'q' }] } });
const standIn = async (reply: (r: RecordedRequest) => StandInReply) => {
  const server = await startStandIn(reply);
  closers.push(server.close);
  return server;
};
const adapterAt = (ms: number) => createLineAdapter({ now: () => new Date(ms) });
const message = (text: string, metadata: Record<string, unknown>, messageId = 'msg_1') => ({
  externalSessionKey: USER_ID,
  reply: { text },
  metadata,
  messageId,
});
const fresh = { sourceType: 'user', userId: USER_ID, replyToken: 'rt-1', eventTimestamp: EVENT_TIME };

describe('LINE sendResponse against a stand-in Messaging API', () => {
  it('replies with the fresh reply token, bearer token, quick reply on the message', async () => {
    const api = await standIn(() => sent('461230966842064897'));
    const adapter = adapterAt(EVENT_TIME + 5_000);
    const reply = {
      text: 'Which size?',
      actionSet: { elements: [{ type: 'button' as const, id: 'm', label: 'Medium', value: 'size-m' }] },
    };
    const result = await adapter.sendResponse(
      { ...message('', fresh), reply, channelOutput: adapter.transformOutput?.(reply, connection) },
      connection,
      { fetch, apiBaseUrl: api.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: '461230966842064897' });
    const [request] = api.requests;
    expect([request?.method, request?.path, request?.headers.authorization]).toEqual([
      'POST',
      '/v2/bot/message/reply',
      'Bearer line-access-token',
    ]);
    expect(request?.headers['x-line-retry-key']).toBeUndefined();
    expect(request?.body).toEqual({
      replyToken: 'rt-1',
      messages: [
        {
          type: 'text',
          text: 'Which size?',
          quickReply: {
            items: [
              {
                type: 'action',
                action: { type: 'postback', label: 'Medium', data: '["m","size-m"]', displayText: 'Medium' },
              },
            ],
          },
        },
      ],
    });
  });

  it('pushes to the chat with a retry key once the token is stale', async () => {
    const api = await standIn(() => sent('1'));
    const result = await adapterAt(EVENT_TIME + LINE_REPLY_TOKEN_TTL_MS).sendResponse(
      { ...message('Late answer', fresh), externalSessionKey: GROUP_ID },
      connection,
      { fetch, apiBaseUrl: api.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: '1' });
    expect(api.requests.map((r) => [r.path, r.headers['x-line-retry-key'], r.body])).toEqual([
      [
        '/v2/bot/message/push',
        lineRetryKey('msg_1', 0),
        { to: GROUP_ID, messages: [{ type: 'text', text: 'Late answer' }] },
      ],
    ]);
  });

  it('sends five messages per request: the first five by reply, the rest by push', async () => {
    const api = await standIn((r) => sent(r.path.endsWith('/reply') ? 'r' : 'p'));
    const text = Array.from({ length: 7 }, (_, i) => `${String(i).repeat(4999)}`).join(' ');
    const result = await adapterAt(EVENT_TIME).sendResponse(message(text, fresh), connection, {
      fetch,
      apiBaseUrl: api.baseUrl,
    });
    expect(result).toEqual({ ok: true, externalMessageId: 'p' });
    const bodies = api.requests.map((r) => [r.path, (r.body as { messages: unknown[] }).messages.length]);
    expect(bodies).toEqual([
      ['/v2/bot/message/reply', 5],
      ['/v2/bot/message/push', 2],
    ]);
    expect(api.requests[1]?.headers['x-line-retry-key']).toBe(lineRetryKey('msg_1', 1));
  });

  it('falls back to push when LINE refuses the reply token, and takes 409 as already delivered', async () => {
    const answers: StandInReply[] = [
      { status: 400, body: { message: 'Invalid reply token' } },
      { status: 409, body: { message: 'The retry key is already accepted' } },
    ];
    const api = await standIn(() => answers.shift() ?? sent('x'));
    const result = await adapterAt(EVENT_TIME + 1_000).sendResponse(message('Hi', fresh), connection, {
      fetch,
      apiBaseUrl: api.baseUrl,
    });
    expect(result).toEqual({ ok: true });
    expect(api.requests.map((r) => r.path)).toEqual(['/v2/bot/message/reply', '/v2/bot/message/push']);
  });

  it('reports 429, 5xx and network failures as retryable and 401 as permanent', async () => {
    const answers: StandInReply[] = [
      { status: 429, body: { message: 'The API rate limit has been exceeded. Try again later.' } },
      { status: 500, body: {} },
      { status: 401, body: { message: 'Authentication failed due to the following reason: invalid token.' } },
    ];
    const api = await standIn(() => answers.shift() ?? sent('x'));
    const send = () =>
      adapterAt(EVENT_TIME + 60_000).sendResponse(message('Hi', fresh), connection, {
        fetch,
        apiBaseUrl: api.baseUrl,
      });
    expect(await send()).toEqual({
      ok: false,
      retryable: true,
      status: 429,
      error: 'line 429: The API rate limit has been exceeded. Try again later.',
    });
    expect(await send()).toMatchObject({ ok: false, retryable: true, status: 500 });
    const denied = await send();
    expect(denied).toMatchObject({ ok: false, retryable: false, status: 401 });
    expect(JSON.stringify(denied)).not.toContain('line-access-token');
    const offline = await adapterAt(EVENT_TIME).sendResponse(message('Hi', fresh), connection, {
      fetch,
      apiBaseUrl: 'http://127.0.0.1:1',
    });
    expect(offline).toEqual({ ok: false, retryable: true, error: 'line 0: request failed' });
  });

  it('starts the loading animation in 1:1 chats only', async () => {
    const api = await standIn(() => ({ status: 202, body: {} }));
    const http = { fetch, apiBaseUrl: api.baseUrl };
    const adapter = createLineAdapter();
    await adapter.sendTypingIndicator?.(connection, USER_ID, { sourceType: 'user', userId: USER_ID }, http);
    await adapter.sendTypingIndicator?.(connection, GROUP_ID, { sourceType: 'group', userId: USER_ID }, http);
    expect(api.requests.map((r) => [r.path, r.headers.authorization, r.body])).toEqual([
      ['/v2/bot/chat/loading/start', 'Bearer line-access-token', { chatId: USER_ID, loadingSeconds: 20 }],
    ]);
  });
});
