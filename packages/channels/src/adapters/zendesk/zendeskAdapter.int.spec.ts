import { afterEach, describe, expect, it } from 'vitest';
import {
  type RecordedRequest,
  type StandInReply,
  startStandIn,
  testConnection,
} from '../../testing/standInServer.js';
import { createZendeskAdapter } from './zendeskAdapter.js';

const APP_ID = '5ebee0975ac5304b664a12fa';
const CONVERSATION = 'c0ffee0123456789abcdef01';
const keys = { appId: APP_ID, keyId: 'app_5ebee0975ac5304b664a12fb', keySecret: 'key-secret-1' };
const basic = `Basic ${Buffer.from(`${keys.keyId}:${keys.keySecret}`).toString('base64')}`;
const connection = testConnection('zendesk', APP_ID, keys);
const adapter = createZendeskAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const created = (id: string) => ({
  status: 201,
  body: { messages: [{ id, received: '2026-11-21T10:00:01.000Z', author: { type: 'business' } }] },
});
const standIn = async (reply: (r: RecordedRequest) => StandInReply) => {
  const server = await startStandIn(reply);
  closers.push(server.close);
  return server;
};

describe('Zendesk sendResponse against a stand-in Sunshine Conversations API', () => {
  it('posts a business text message with reply actions, basic auth, to the conversation', async () => {
    const api = await standIn(() => created('5f6ce8fac1bca1cdb80b6f99'));
    const reply = {
      text: 'Refund the **order**?',
      actionSet: { elements: [{ type: 'button' as const, id: 'refund', label: 'Yes', value: 'yes' }] },
    };
    const result = await adapter.sendResponse(
      {
        externalSessionKey: CONVERSATION,
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: { conversationId: CONVERSATION },
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: api.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: '5f6ce8fac1bca1cdb80b6f99' });
    const [request] = api.requests;
    expect([request?.method, request?.path, request?.headers.authorization]).toEqual([
      'POST',
      `/v2/apps/${APP_ID}/conversations/${CONVERSATION}/messages`,
      basic,
    ]);
    expect(request?.body).toEqual({
      author: { type: 'business' },
      content: {
        type: 'text',
        text: 'Refund the **order**?',
        actions: [{ type: 'reply', text: 'Yes', payload: '["refund","yes"]' }],
      },
    });
  });

  it('sends long text as several messages, in order', async () => {
    const api = await standIn(() => created('m'));
    const result = await adapter.sendResponse(
      { externalSessionKey: CONVERSATION, reply: { text: 'z'.repeat(5000) }, metadata: {}, messageId: 'm' },
      connection,
      { fetch, apiBaseUrl: api.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: 'm' });
    expect(api.requests.map((r) => (r.body as { content: { text: string } }).content.text.length)).toEqual([
      4096, 904,
    ]);
  });

  it('reports 429, 5xx and network failures as retryable and 401/404 as permanent, without secrets', async () => {
    const answers: StandInReply[] = [
      { status: 429, body: { errors: [{ code: 'too_many_requests', title: 'Too many requests' }] } },
      { status: 503, body: {} },
      { status: 401, body: { errors: [{ code: 'unauthorized', title: 'Authorization Required' }] } },
      {
        status: 404,
        body: { errors: [{ code: 'conversation_not_found', title: 'Conversation not found' }] },
      },
    ];
    const api = await standIn(() => answers.shift() ?? created('x'));
    const send = () =>
      adapter.sendResponse(
        { externalSessionKey: CONVERSATION, reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        { fetch, apiBaseUrl: api.baseUrl },
      );
    expect(await send()).toEqual({
      ok: false,
      retryable: true,
      status: 429,
      error: 'zendesk 429: Too many requests',
    });
    expect(await send()).toMatchObject({ ok: false, retryable: true, status: 503 });
    const denied = await send();
    expect(denied).toEqual({
      ok: false,
      retryable: false,
      status: 401,
      error: 'zendesk 401: Authorization Required',
    });
    expect(JSON.stringify(denied)).not.toContain(keys.keySecret);
    expect(await send()).toMatchObject({ ok: false, retryable: false, status: 404 });
    const offline = await adapter.sendResponse(
      { externalSessionKey: CONVERSATION, reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
      connection,
      { fetch, apiBaseUrl: 'http://127.0.0.1:1' },
    );
    expect(offline).toEqual({ ok: false, retryable: true, error: 'zendesk 0: request failed' });
  });

  it('sends typing:start as a business activity', async () => {
    const api = await standIn(() => ({ status: 200, body: {} }));
    await adapter.sendTypingIndicator?.(
      connection,
      CONVERSATION,
      { conversationId: CONVERSATION },
      {
        fetch,
        apiBaseUrl: api.baseUrl,
      },
    );
    expect(api.requests.map((r) => [r.path, r.headers.authorization, r.body])).toEqual([
      [
        `/v2/apps/${APP_ID}/conversations/${CONVERSATION}/activity`,
        basic,
        { author: { type: 'business' }, type: 'typing:start' },
      ],
    ]);
  });
});
