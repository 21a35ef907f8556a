import { afterEach, describe, expect, it } from 'vitest';
import { startStandIn, testConnection } from '../../testing/standInServer.js';
import { createInstagramAdapter } from './instagramAdapter.js';

const IG_ID = '17841405822304914';
const IGSID = '1254459154682919';
const connection = testConnection('instagram', IG_ID, {
  accessToken: 'IGQW-token',
  appSecret: 'secret',
  verifyToken: 'verify',
});
const adapter = createInstagramAdapter();
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

describe('Instagram sendResponse against a stand-in Send API', () => {
  it('posts text with quick replies to /me/messages with the bearer token', async () => {
    const standIn = await startStandIn(() => ({
      status: 200,
      body: { recipient_id: IGSID, message_id: 'ig_out1' },
    }));
    closers.push(standIn.close);
    const reply = {
      text: 'Which colour?',
      actionSet: {
        elements: [
          {
            type: 'select' as const,
            id: 'colour',
            label: 'Colour',
            options: [
              { label: 'Red', value: 'red' },
              { label: 'Blue', value: 'blue' },
            ],
          },
        ],
      },
    };
    const result = await adapter.sendResponse(
      {
        externalSessionKey: IGSID,
        reply,
        channelOutput: adapter.transformOutput?.(reply, connection),
        metadata: {},
        messageId: 'msg_1',
      },
      connection,
      { fetch, apiBaseUrl: standIn.baseUrl },
    );
    expect(result).toEqual({ ok: true, externalMessageId: 'ig_out1' });
    expect(standIn.requests.map((r) => [r.method, r.path, r.headers.authorization, r.body])).toEqual([
      [
        'POST',
        '/me/messages',
        'Bearer IGQW-token',
        {
          recipient: { id: IGSID },
          message: {
            text: 'Which colour?',
            quick_replies: [
              { content_type: 'text', title: 'Red', payload: '["colour","red"]' },
              { content_type: 'text', title: 'Blue', payload: '["colour","blue"]' },
            ],
          },
        },
      ],
    ]);
  });

  it('reports errors: 5xx retryable, an invalid recipient permanent, unreachable retryable', async () => {
    const answers = [
      { status: 503, body: { error: { message: 'Service unavailable', code: 2 } } },
      { status: 400, body: { error: { message: 'Invalid parameter', code: 100, error_subcode: 2534014 } } },
    ];
    const standIn = await startStandIn(() => answers.shift() ?? { status: 200, body: {} });
    closers.push(standIn.close);
    const send = (apiBaseUrl: string) =>
      adapter.sendResponse(
        { externalSessionKey: IGSID, reply: { text: 'hi' }, metadata: {}, messageId: 'm' },
        connection,
        {
          fetch,
          apiBaseUrl,
        },
      );
    expect(await send(standIn.baseUrl)).toMatchObject({ ok: false, retryable: true, status: 503 });
    expect(await send(standIn.baseUrl)).toMatchObject({ ok: false, retryable: false, status: 400 });
    expect(await send('http://127.0.0.1:1')).toMatchObject({ ok: false, retryable: true });
  });

  it('sends typing_on as the typing indicator', async () => {
    const standIn = await startStandIn(() => ({ status: 200, body: { recipient_id: IGSID } }));
    closers.push(standIn.close);
    await adapter.sendTypingIndicator?.(connection, IGSID, {}, { fetch, apiBaseUrl: standIn.baseUrl });
    expect(standIn.requests.map((r) => [r.path, r.body])).toEqual([
      ['/me/messages', { recipient: { id: IGSID }, sender_action: 'typing_on' }],
    ]);
  });
});
