import { createHmac } from 'node:crypto';
import type { ActionSet } from '@parley/events';
import { actionSetSchema } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createWhatsAppAdapter, verifyMetaSignature } from './whatsappAdapter.js';
import { toWhatsAppOutput, WHATSAPP_LIMITS } from './whatsappTransform.js';

const APP_SECRET = 'meta-app-secret';
const PHONE_NUMBER_ID = '106540352242922';
const connection = testConnection('whatsapp', PHONE_NUMBER_ID, {
  accessToken: 'EAAG-token',
  appSecret: APP_SECRET,
  verifyToken: 'verify-me',
});
const adapter = createWhatsAppAdapter();

// Shapes from the WhatsApp Cloud API webhook reference (messages / statuses notifications).
const envelope = (value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
            ...value,
          },
          field: 'messages',
        },
      ],
    },
  ],
});
const contacts = [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }];
const textPayload = envelope({
  contacts,
  messages: [
    {
      from: '16505551234',
      id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
      timestamp: '1749416383',
      type: 'text',
      text: { body: 'Does it come in another color?' },
    },
  ],
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
    url: `https://parley.example/api/v1/channels/whatsapp/webhook/${PHONE_NUMBER_ID}`,
    query: {},
  };
};

describe('WhatsApp verifyRequest', () => {
  it('accepts a request signed with the app secret', () => {
    expect(adapter.verifyRequest(request(textPayload), connection)).toBe(true);
  });

  it('refuses a wrong secret, a tampered body, a missing or malformed header', () => {
    expect(adapter.verifyRequest(request(textPayload, 'other-secret'), connection)).toBe(false);
    const tampered = {
      ...request(textPayload),
      rawBody: Buffer.from(JSON.stringify(textPayload).replace('color', 'colour')),
    };
    expect(adapter.verifyRequest(tampered, connection)).toBe(false);
    expect(adapter.verifyRequest({ ...request(textPayload), headers: {} }, connection)).toBe(false);
    const sig = request(textPayload).headers['x-hub-signature-256'] as string;
    expect(
      adapter.verifyRequest(
        { ...request(textPayload), headers: { 'x-hub-signature-256': sig.slice(7) } },
        connection,
      ),
    ).toBe(false);
    expect(adapter.verifyRequest(request(textPayload), { ...connection, credentials: {} })).toBe(false);
  });

  it('never throws and accepts only the exact signature (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.option(fc.string()),
        fc.string(),
        (body, header, secret) => {
          const raw = Buffer.from(body);
          const result = verifyMetaSignature(raw, header ?? undefined, secret);
          const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
          expect(result).toBe(
            secret !== '' && header?.startsWith('sha256=') === true && header.toLowerCase() === expected,
          );
        },
      ),
    );
  });
});

describe('WhatsApp parseIncoming', () => {
  it('normalizes a text message (spec 001 §2.1)', () => {
    expect(adapter.parseIncoming(request(textPayload), connection)).toEqual([
      {
        externalMessageId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
        externalSessionKey: '16505551234',
        text: 'Does it come in another color?',
        metadata: {
          phoneNumberId: PHONE_NUMBER_ID,
          displayPhoneNumber: '15550783881',
          from: '16505551234',
          messageId: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
          messageType: 'text',
          profileName: 'Sheena Nelson',
        },
        timestamp: '2025-06-08T20:59:43.000Z',
        channelUserId: '16505551234',
      },
    ]);
  });

  it('gives button and list replies as action events', () => {
    const payload = envelope({
      contacts,
      messages: [
        {
          context: { from: '15550783881', id: 'wamid.out1' },
          from: '16505551234',
          id: 'wamid.in1',
          timestamp: '1749416383',
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: '["yes","confirm"]', title: 'Yes' } },
        },
        {
          from: '16505551234',
          id: 'wamid.in2',
          timestamp: '1749416384',
          type: 'interactive',
          interactive: {
            type: 'list_reply',
            list_reply: { id: '["size","m"]', title: 'Medium', description: 'Fits most' },
          },
        },
        {
          from: '16505551234',
          id: 'wamid.in3',
          timestamp: '1749416385',
          type: 'button',
          button: { payload: 'STOP', text: 'Stop promotions' },
        },
      ],
    });
    const parsed = adapter.parseIncoming(request(payload), connection);
    expect(parsed.map((m) => [m.externalMessageId, m.text, m.actionEvent])).toEqual([
      ['wamid.in1', 'Yes', { actionId: 'yes', value: 'confirm', type: 'button', title: 'Yes' }],
      ['wamid.in2', 'Medium', { actionId: 'size', value: 'm', type: 'select', title: 'Medium' }],
      [
        'wamid.in3',
        'Stop promotions',
        { actionId: 'STOP', value: 'STOP', type: 'button', title: 'Stop promotions' },
      ],
    ]);
  });

  it('ignores statuses, reactions, other phone numbers and other objects', () => {
    const statuses = envelope({
      statuses: [
        { id: 'wamid.out1', status: 'delivered', timestamp: '1749416390', recipient_id: '16505551234' },
        { id: 'wamid.out1', status: 'read', timestamp: '1749416391', recipient_id: '16505551234' },
      ],
    });
    expect(adapter.parseIncoming(request(statuses), connection)).toEqual([]);
    const reaction = envelope({
      contacts,
      messages: [
        {
          from: '16505551234',
          id: 'wamid.r',
          timestamp: '1749416383',
          type: 'reaction',
          reaction: { message_id: 'wamid.out1', emoji: '👍' },
        },
      ],
    });
    expect(adapter.parseIncoming(request(reaction), connection)).toEqual([]);
    const other = { ...connection, externalIdentifier: '999' };
    expect(adapter.parseIncoming(request(textPayload), other)).toEqual([]);
    expect(adapter.parseIncoming(request({ object: 'page', entry: [] }), connection)).toEqual([]);
    expect(
      adapter.parseIncoming(
        { ...request(textPayload), body: undefined, rawBody: Buffer.from('{') },
        connection,
      ),
    ).toEqual([]);
  });

  it('reads the connection identifier from the body', () => {
    expect(adapter.connectionIdentifier(request(textPayload))).toBe(PHONE_NUMBER_ID);
  });
});

describe('WhatsApp challenge', () => {
  const challengeRequest = (query: Record<string, string>): InboundRequest => ({
    headers: {},
    body: undefined,
    rawBody: Buffer.alloc(0),
    url: 'https://parley.example/api/v1/channels/whatsapp/webhook',
    query,
  });
  const lookup = async (type: string, token: string) =>
    type === 'whatsapp' && token === 'verify-me' ? connection : null;

  it('echoes hub.challenge for a known verify token and refuses others', async () => {
    const query = { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '1158201444' };
    expect(await adapter.challenge?.(challengeRequest(query), lookup)).toEqual({
      status: 200,
      body: '1158201444',
    });
    expect(
      await adapter.challenge?.(challengeRequest({ ...query, 'hub.verify_token': 'nope' }), lookup),
    ).toEqual({
      status: 403,
      body: 'Forbidden',
    });
    expect(await adapter.challenge?.(challengeRequest({}), lookup)).toBeNull();
  });
});

describe('WhatsApp transformOutput', () => {
  const buttons = (n: number): ActionSet => ({
    prompt: 'Pick one',
    elements: Array.from({ length: n }, (_, i) => ({
      type: 'button' as const,
      id: `b${i}`,
      label: `Option ${i}`,
    })),
  });

  it('renders up to 3 buttons as reply buttons', () => {
    expect(toWhatsAppOutput({ text: 'Hello', actionSet: buttons(2) })).toEqual({
      messages: [
        { type: 'text', text: { preview_url: false, body: 'Hello' } },
        {
          type: 'interactive',
          interactive: {
            type: 'button',
            body: { text: 'Pick one' },
            action: {
              buttons: [
                { type: 'reply', reply: { id: 'b0', title: 'Option 0' } },
                { type: 'reply', reply: { id: 'b1', title: 'Option 1' } },
              ],
            },
          },
        },
      ],
    });
  });

  it('renders more than 3 buttons or a select as one list of at most 10 rows', () => {
    const output = toWhatsAppOutput({
      text: 'Which size?',
      actionSet: {
        elements: [
          {
            type: 'select',
            id: 'size',
            label: 'Size',
            placeholder: 'Choose a size',
            options: Array.from({ length: 12 }, (_, i) => ({ label: `Size ${i}`, value: `s${i}` })),
          },
        ],
      },
    });
    expect(output.messages).toHaveLength(1);
    const list = output.messages[0];
    expect(
      list?.type === 'interactive' && list.interactive.type === 'list' && list.interactive,
    ).toMatchObject({
      body: { text: 'Which size?' },
      action: { button: 'Choose a size', sections: [{ title: 'Size' }] },
    });
    const rows =
      list?.type === 'interactive' && list.interactive.type === 'list'
        ? list.interactive.action.sections[0]?.rows
        : [];
    expect(rows).toHaveLength(10);
    expect(rows?.[0]).toEqual({ id: '["size","s0"]', title: 'Size 0' });
  });

  it('keeps titles unique after cutting them to 20 characters', () => {
    const long = 'Cancel my subscription today';
    const output = toWhatsAppOutput({
      text: 'Sure?',
      actionSet: {
        elements: [1, 2, 3].map((i) => ({ type: 'button' as const, id: `b${i}`, label: long })),
      },
    });
    const message = output.messages[0];
    const titles =
      message?.type === 'interactive' && message.interactive.type === 'button'
        ? message.interactive.action.buttons.map((b) => b.reply.title)
        : [];
    expect(titles).toEqual(['Cancel my subscript…', 'Cancel my subscri… 2', 'Cancel my subscri… 3']);
  });

  it('splits long text at 4096 characters', () => {
    const output = toWhatsAppOutput({ text: 'a'.repeat(5000) });
    expect(output.messages.map((m) => (m.type === 'text' ? m.text.body.length : 0))).toEqual([4096, 904]);
  });

  it('never exceeds 3 reply buttons, 10 list rows or the text limits (property)', () => {
    fc.assert(
      fc.property(outgoingReplyArbitrary({ maxTextLength: 9000 }), (reply) => {
        if (reply.actionSet !== undefined)
          expect(actionSetSchema.safeParse(reply.actionSet).success).toBe(true);
        const output = toWhatsAppOutput(reply);
        for (const message of output.messages) {
          if (message.type === 'text') {
            expect(Array.from(message.text.body).length).toBeLessThanOrEqual(WHATSAPP_LIMITS.textBody);
            continue;
          }
          const interactive = message.interactive;
          expect(Array.from(interactive.body.text).length).toBeLessThanOrEqual(
            WHATSAPP_LIMITS.interactiveBody,
          );
          if (interactive.type === 'button') {
            expect(interactive.action.buttons.length).toBeLessThanOrEqual(3);
            for (const b of interactive.action.buttons) {
              expect(Array.from(b.reply.title).length).toBeLessThanOrEqual(WHATSAPP_LIMITS.buttonTitle);
              expect(Array.from(b.reply.id).length).toBeLessThanOrEqual(WHATSAPP_LIMITS.buttonId);
            }
            expect(new Set(interactive.action.buttons.map((b) => b.reply.title)).size).toBe(
              interactive.action.buttons.length,
            );
          } else {
            const rows = interactive.action.sections.flatMap((s) => s.rows);
            expect(rows.length).toBeLessThanOrEqual(10);
            expect(rows.length).toBeGreaterThan(0);
            for (const r of rows) {
              expect(Array.from(r.title).length).toBeLessThanOrEqual(WHATSAPP_LIMITS.rowTitle);
              expect(Array.from(r.id).length).toBeLessThanOrEqual(WHATSAPP_LIMITS.rowId);
            }
            expect(Array.from(interactive.action.button).length).toBeLessThanOrEqual(
              WHATSAPP_LIMITS.listButton,
            );
          }
        }
      }),
    );
  });
});
