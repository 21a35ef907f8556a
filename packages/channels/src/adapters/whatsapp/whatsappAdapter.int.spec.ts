import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createWhatsAppAdapter } from './whatsappAdapter.js';

const connection = testConnection('whatsapp', '106540352242922', {
  accessToken: 'EAAG-token',
  appSecret: 'secret',
  verifyToken: 'verify',
});
const adapter = createWhatsAppAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const graphOk = (id: string) => ({
  status: 200,
  body: {
    messaging_product: 'whatsapp',
    contacts: [{ input: '16505551234', wa_id: '16505551234' }],
    messages: [{ id }],
  },
});

describe('WhatsApp sendResponse against a stand-in Graph API', () => {
  it('posts text and interactive buttons to /{phone-number-id}/messages with the bearer token', async () => {
    let n = 0;
    const standIn = await startStandIn(() => graphOk(`wamid.out${++n}`));
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
        externalSessionKey: '16505551234',
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: {},
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: standIn.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: 'wamid.out2' });
    expect(standIn.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ['POST', '/106540352242922/messages', 'Bearer EAAG-token'],
      ['POST', '/106540352242922/messages', 'Bearer EAAG-token'],
    ]);
    expect(standIn.requests.map((r) => r.body)).toEqual([
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '16505551234',
        type: 'text',
        text: { preview_url: false, body: 'Your order shipped.' },
      },
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '16505551234',
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Anything else?' },
          action: { buttons: [{ type: 'reply', reply: { id: 'no', title: 'No thanks' } }] },
        },
      },
    ]);
  });

  it('reports Graph errors: throttling is retryable, a bad recipient is not', async () => {
    const errors = [
      {
        status: 400,
        body: { error: { message: '(#130429) Rate limit hit', type: 'OAuthException', code: 130429 } },
      },
      {
        status: 400,
        body: {
          error: { message: '(#131030) Recipient not in allowed list', type: 'OAuthException', code: 131030 },
        },
      },
    ];
    const standIn = await startStandIn(() => errors.shift() ?? graphOk('x'));
    closers.push(standIn.close);
    const send = () =>
      adapter.sendResponse(
        { externalSessionKey: '16505551234', reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        { fetch, apiBaseUrl: standIn.baseUrl },
      );
    expect(await send()).toMatchObject({ ok: false, retryable: true, status: 400 });
    expect(await send()).toMatchObject({ ok: false, retryable: false, status: 400 });
  });

  it('reports an unreachable API as retryable', async () => {
    const result = await adapter.sendResponse(
      { externalSessionKey: '1', reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
      connection,
      { fetch, apiBaseUrl: 'http://127.0.0.1:1' },
    );
    expect(result).toMatchObject({ ok: false, retryable: true });
  });

  it('sends the typing indicator with the read receipt of the inbound message', async () => {
    const standIn = await startStandIn(() => ({ status: 200, body: { success: true } }));
    closers.push(standIn.close);
    await adapter.sendTypingIndicator?.(
      connection,
      '16505551234',
      { messageId: 'wamid.in1' },
      {
        fetch,
        apiBaseUrl: standIn.baseUrl,
      },
    );
    expect(standIn.requests.map((r) => [r.path, r.body])).toEqual([
      [
        '/106540352242922/messages',
        {
          messaging_product: 'whatsapp',
          status: 'read',
          message_id: 'wamid.in1',
          typing_indicator: { type: 'text' },
        },
      ],
    ]);
  });
});
