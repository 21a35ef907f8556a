import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createMessengerAdapter } from './messengerAdapter.js';

const PAGE_ID = '107719024567890';
const PSID = '6785432198765432';
const connection = testConnection('messenger', PAGE_ID, {
  accessToken: 'EAAB-page-token',
  appSecret: 'secret',
  verifyToken: 'verify',
});
const adapter = createMessengerAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const sendOk = (id: string) => ({ status: 200, body: { recipient_id: PSID, message_id: id } });

describe('Messenger sendResponse against a stand-in Send API', () => {
  it('posts text and a button template to /{page-id}/messages with the bearer token', async () => {
    let n = 0;
    const standIn = await startStandIn(() => sendOk(`m_out${++n}`));
    closers.push(standIn.close);
    const reply = {
      text: 'Your order shipped.',
      actionSet: {
        prompt: 'Anything else?',
        elements: [{ type: 'button' as const, id: 'no', label: 'No thanks' }],
      },
    };
    const result = await adapter.sendResponse(
      {
        externalSessionKey: PSID,
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: {},
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: standIn.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: 'm_out2' });
    expect(standIn.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['POST', `/${PAGE_ID}/messages`, 'Bearer EAAB-page-token'],
      ['POST', `/${PAGE_ID}/messages`, 'Bearer EAAB-page-token'],
    ]);
    expect(standIn.requests.map((r) => r.body)).toEqual([
      { recipient: { id: PSID }, messaging_type: 'RESPONSE', message: { text: 'Your order shipped.' } },
      {
        recipient: { id: PSID },
        messaging_type: 'RESPONSE',
        message: {
          attachment: {
            type: 'template',
            payload: {
              template_type: 'button',
              text: 'Anything else?',
              buttons: [{ type: 'postback', title: 'No thanks', payload: 'no' }],
            },
          },
        },
      },
    ]);
  });

  it('reports Send API errors: throttling is retryable, a bad recipient is not', async () => {
    const errors = [
      {
        status: 400,
        body: { error: { message: '(#613) Calls to this api have exceeded the rate limit.', code: 613 } },
      },
      {
        status: 400,
        body: { error: { message: 'No matching user found', type: 'OAuthException', code: 100 } },
      },
    ];
    const standIn = await startStandIn(() => errors.shift() ?? sendOk('x'));
    closers.push(standIn.close);
    const send = () =>
      adapter.sendResponse(
        { externalSessionKey: PSID, reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        {
          fetch,
          apiBaseUrl: standIn.baseUrl,
        },
      );
    expect(await send()).toMatchObject({ ok: false, retryable: true, status: 400 });
    const permanent = await send();
    expect(permanent).toMatchObject({ ok: false, retryable: false, status: 400 });
    expect(JSON.stringify(permanent)).not.toContain('EAAB-page-token');
  });

  it('reports an unreachable API as retryable', async () => {
    const result = await adapter.sendResponse(
      { externalSessionKey: PSID, reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
      connection,
      { fetch, apiBaseUrl: 'http://127.0.0.1:1' },
    );
    expect(result).toMatchObject({ ok: false, retryable: true });
  });

  it('sends typing_on as the typing indicator', async () => {
    const standIn = await startStandIn(() => ({ status: 200, body: { recipient_id: PSID } }));
    closers.push(standIn.close);
    await adapter.sendTypingIndicator?.(connection, PSID, {}, { fetch, apiBaseUrl: standIn.baseUrl });
    expect(standIn.requests.map((r) => [r.path, r.body])).toEqual([
      [`/${PAGE_ID}/messages`, { recipient: { id: PSID }, sender_action: 'typing_on' }],
    ]);
  });
});
