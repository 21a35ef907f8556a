import { createHmac } from 'node:crypto';
import type { ActionSet } from '@parley/events';
import { actionSetSchema } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createMessengerAdapter } from './messengerAdapter.js';
import { MESSENGER_LIMITS, toMessengerOutput } from './messengerTransform.js';

const APP_SECRET = 'meta-app-secret';
const PAGE_ID = '107719024567890';
const PSID = '6785432198765432';
const connection = testConnection('messenger', PAGE_ID, {
  accessToken: 'EAAB-page-token',
  appSecret: APP_SECRET,
  verifyToken: 'verify-me',
});
const adapter = createMessengerAdapter();

// Shapes from the Messenger Platform webhook reference (messages, messaging_postbacks,
// message_echoes, message_deliveries, message_reads).
const envelope = (...messaging: Record<string, unknown>[]) => ({
  object: 'page',
  entry: [{ id: PAGE_ID, time: 1458692752478, messaging }],
});
const from = { sender: { id: PSID }, recipient: { id: PAGE_ID }, timestamp: 1458692752478 };
const textPayload = envelope({
  ...from,
  message: { mid: 'm_1457764197618:41d102a3e1ae206a38', text: 'hello, world!' },
});

const request = (payload: unknown, secret = APP_SECRET): InboundRequest => {
  const rawBody = Buffer.from(JSON.stringify(payload));
  return {
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`,
    },
    body: payload,
    rawBody,
    url: `https://parley.example/api/v1/channels/messenger/webhook/${PAGE_ID}`,
    query: {},
  };
};

describe('Messenger verifyRequest', () => {
  it('accepts a request signed with the app secret', () => {
    expect(adapter.verifyRequest(request(textPayload), connection)).toBe(true);
  });

  it('refuses a wrong secret, a tampered body, a missing header or a connection without secret', () => {
    expect(adapter.verifyRequest(request(textPayload, 'other-secret'), connection)).toBe(false);
    const tampered = {
      ...request(textPayload),
      rawBody: Buffer.from(JSON.stringify(textPayload).replace('hello', 'HELLO')),
    };
    expect(adapter.verifyRequest(tampered, connection)).toBe(false);
    expect(adapter.verifyRequest({ ...request(textPayload), headers: {} }, connection)).toBe(false);
    expect(adapter.verifyRequest(request(textPayload), { ...connection, credentials: {} })).toBe(false);
  });

  it('never throws on any body or header (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.option(fc.string()), (body, header) => {
        const req: InboundRequest = {
          headers: header === null ? {} : { 'x-hub-signature-256': header },
          body: undefined,
          rawBody: Buffer.from(body),
          url: 'https://parley.example/x',
          query: {},
        };
        expect(adapter.verifyRequest(req, connection)).toBe(false);
      }),
    );
  });
});

describe('Messenger parseIncoming', () => {
  it('normalizes a text message (spec 001 §2.1)', () => {
    expect(adapter.parseIncoming(request(textPayload), connection)).toEqual([
      {
        externalMessageId: 'm_1457764197618:41d102a3e1ae206a38',
        externalSessionKey: PSID,
        text: 'hello, world!',
        metadata: {
          senderId: PSID,
          recipientId: PAGE_ID,
          messageId: 'm_1457764197618:41d102a3e1ae206a38',
          messageType: 'text',
          entryId: PAGE_ID,
        },
        timestamp: '2016-03-23T00:25:52.478Z',
        channelUserId: PSID,
      },
    ]);
  });

  it('gives quick reply taps and postbacks as action events', () => {
    const payload = envelope(
      {
        ...from,
        message: { mid: 'm_qr', text: 'Medium', quick_reply: { payload: '["size","m"]' } },
      },
      {
        ...from,
        timestamp: 1527459824000,
        postback: { mid: 'm_pb', title: 'Talk to a person', payload: 'HUMAN' },
      },
      { ...from, timestamp: 1527459825000, postback: { title: 'Start', payload: 'GET_STARTED' } },
    );
    const parsed = adapter.parseIncoming(request(payload), connection);
    expect(parsed.map((m) => [m.externalMessageId, m.text, m.actionEvent, m.metadata.messageType])).toEqual([
      ['m_qr', 'Medium', { actionId: 'size', value: 'm', type: 'button', title: 'Medium' }, 'quick_reply'],
      [
        'm_pb',
        'Talk to a person',
        { actionId: 'HUMAN', value: 'HUMAN', type: 'button', title: 'Talk to a person' },
        'postback',
      ],
      [
        `postback:${PSID}:1527459825000`,
        'Start',
        { actionId: 'GET_STARTED', value: 'GET_STARTED', type: 'button', title: 'Start' },
        'postback',
      ],
    ]);
  });

  it('ignores echoes, deliveries, reads, attachments without text, other pages and other objects', () => {
    const ignored = envelope(
      {
        sender: { id: PAGE_ID },
        recipient: { id: PSID },
        timestamp: 1458692752478,
        message: { is_echo: true, app_id: 1517776481860111, mid: 'm_echo', text: 'our reply' },
      },
      { ...from, delivery: { mids: ['m_echo'], watermark: 1458668856253 } },
      { ...from, read: { watermark: 1458668856253 } },
      {
        ...from,
        message: { mid: 'm_img', attachments: [{ type: 'image', payload: { url: 'https://x' } }] },
      },
      { ...from, reaction: { mid: 'm_echo', action: 'react', reaction: 'love', emoji: '❤' } },
    );
    expect(adapter.parseIncoming(request(ignored), connection)).toEqual([]);
    const other = { ...connection, externalIdentifier: '999' };
    expect(adapter.parseIncoming(request(textPayload), other)).toEqual([]);
    expect(adapter.parseIncoming(request({ ...textPayload, object: 'instagram' }), connection)).toEqual([]);
    expect(
      adapter.parseIncoming(
        { ...request(textPayload), body: undefined, rawBody: Buffer.from('{') },
        connection,
      ),
    ).toEqual([]);
  });

  it('never throws on arbitrary JSON (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const req = { ...request(value), body: value };
        expect(Array.isArray(adapter.parseIncoming(req, connection))).toBe(true);
      }),
    );
  });

  it('reads the connection identifier from the body', () => {
    expect(adapter.connectionIdentifier(request(textPayload))).toBe(PAGE_ID);
  });
});

describe('Messenger challenge', () => {
  const challengeRequest = (query: Record<string, string>): InboundRequest => ({
    headers: {},
    body: undefined,
    rawBody: Buffer.alloc(0),
    url: 'https://parley.example/api/v1/channels/messenger/webhook',
    query,
  });
  const lookup = async (type: string, token: string) =>
    type === 'messenger' && token === 'verify-me' ? connection : null;

  it('echoes hub.challenge for a known verify token and refuses others', async () => {
    const query = { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '1158201444' };
    expect(await adapter.challenge?.(challengeRequest(query), lookup)).toEqual({
      status: 200,
      body: '1158201444',
    });
    expect(
      await adapter.challenge?.(challengeRequest({ ...query, 'hub.verify_token': 'no' }), lookup),
    ).toEqual({
      status: 403,
      body: 'Forbidden',
    });
    expect(await adapter.challenge?.(challengeRequest({}), lookup)).toBeNull();
  });
});

describe('Messenger transformOutput', () => {
  const buttons = (n: number): ActionSet => ({
    prompt: 'Pick one',
    elements: Array.from({ length: n }, (_, i) => ({
      type: 'button' as const,
      id: `b${i}`,
      label: `Option ${i}`,
    })),
  });

  it('renders up to 3 buttons as a button template', () => {
    expect(toMessengerOutput({ text: 'Hello', actionSet: buttons(2) })).toEqual({
      messages: [
        { text: 'Hello' },
        {
          attachment: {
            type: 'template',
            payload: {
              template_type: 'button',
              text: 'Pick one',
              buttons: [
                { type: 'postback', title: 'Option 0', payload: 'b0' },
                { type: 'postback', title: 'Option 1', payload: 'b1' },
              ],
            },
          },
        },
      ],
    });
  });

  it('renders more buttons or a select as at most 13 quick replies on the text', () => {
    const output = toMessengerOutput({
      text: 'Which size?',
      actionSet: {
        elements: [
          {
            type: 'select',
            id: 'size',
            label: 'Size',
            options: Array.from({ length: 20 }, (_, i) => ({ label: `Size ${i}`, value: `s${i}` })),
          },
        ],
      },
    });
    expect(output.messages).toHaveLength(1);
    const message = output.messages[0];
    const quickReplies = message !== undefined && 'quick_replies' in message ? message.quick_replies : [];
    expect(message && 'text' in message && message.text).toBe('Which size?');
    expect(quickReplies).toHaveLength(13);
    expect(quickReplies?.[0]).toEqual({ content_type: 'text', title: 'Size 0', payload: '["size","s0"]' });
    expect(toMessengerOutput({ text: 'Hi', actionSet: buttons(4) }).messages[1]).toMatchObject({
      quick_replies: [{ payload: 'b0' }, { payload: 'b1' }, { payload: 'b2' }, { payload: 'b3' }],
    });
  });

  it('splits long text at 2000 characters', () => {
    const output = toMessengerOutput({ text: 'a'.repeat(4500) });
    expect(output.messages.map((m) => ('text' in m ? m.text.length : 0))).toEqual([2000, 2000, 500]);
  });

  it('never exceeds 3 template buttons, 13 quick replies or the text limits (property)', () => {
    const reply = outgoingReplyArbitrary({ maxTextLength: 5000 });
    const len = (s: string) => Array.from(s).length;
    fc.assert(
      fc.property(reply, (r) => {
        if (r.actionSet !== undefined) expect(actionSetSchema.safeParse(r.actionSet).success).toBe(true);
        const output = toMessengerOutput(r);
        for (const m of output.messages) {
          if ('attachment' in m) {
            const p = m.attachment.payload;
            expect(len(p.text)).toBeLessThanOrEqual(MESSENGER_LIMITS.buttonTemplateText);
            expect(p.buttons.length).toBeGreaterThan(0);
            expect(p.buttons.length).toBeLessThanOrEqual(MESSENGER_LIMITS.buttons);
            for (const b of p.buttons) {
              expect(len(b.title)).toBeLessThanOrEqual(MESSENGER_LIMITS.buttonTitle);
              expect(len(b.payload)).toBeLessThanOrEqual(MESSENGER_LIMITS.payload);
            }
          } else {
            expect(len(m.text)).toBeLessThanOrEqual(MESSENGER_LIMITS.text);
            expect(m.text.length).toBeGreaterThan(0);
            expect(m.quick_replies?.length ?? 0).toBeLessThanOrEqual(MESSENGER_LIMITS.quickReplies);
            for (const q of m.quick_replies ?? []) {
              expect(len(q.title)).toBeLessThanOrEqual(MESSENGER_LIMITS.quickReplyTitle);
              expect(len(q.payload)).toBeLessThanOrEqual(MESSENGER_LIMITS.payload);
            }
          }
        }
      }),
    );
  });
});
