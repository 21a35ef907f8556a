import { createHmac } from 'node:crypto';
import { type ActionSet, actionSetSchema } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import {
  createZendeskAdapter,
  verifyZendeskBasicAuth,
  verifyZendeskSignature,
  ZENDESK_REPLAY_WINDOW_SECONDS,
} from './zendeskAdapter.js';
import { toZendeskOutput, ZENDESK_LIMITS } from './zendeskTransform.js';

const APP_ID = '5ebee0975ac5304b664a12fa';
const SECRET = 'zd-webhook-secret';
const NOW = new Date('2026-11-21T10:00:00.000Z');
const NOW_SECONDS = NOW.getTime() / 1000;
const adapter = createZendeskAdapter({ now: () => NOW });
const keys = { appId: APP_ID, keyId: 'app_5ebee0975ac5304b664a12fb', keySecret: 'key-secret-1' };
const signed = testConnection('zendesk', APP_ID, { ...keys, webhookSecret: SECRET });
const unsigned = testConnection('zendesk', APP_ID, keys);

const sign = (timestamp: string, raw: string, secret = SECRET) =>
  createHmac('sha256', secret).update(`${timestamp}${raw}`).digest('base64');
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const request = (body: unknown, headers: Record<string, string> = {}): InboundRequest => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: undefined,
  rawBody: Buffer.from(JSON.stringify(body)),
  url: 'https://parley.example/api/v1/channels/zendesk/webhook',
  query: {},
});
const signedRequest = (body: unknown, options: { timestamp?: string; secret?: string } = {}) => {
  const timestamp = options.timestamp ?? NOW.toISOString().replace('.000', '');
  return request(body, {
    'x-zendesk-webhook-signature-timestamp': timestamp,
    'x-zendesk-webhook-signature': sign(timestamp, JSON.stringify(body), options.secret),
  });
};

// Shapes from the Sunshine Conversations v2 webhook reference (conversation:message, :postback...).
const conversation = { id: 'c0ffee0123456789abcdef01', type: 'personal' };
const userMessage = {
  id: '5f6ce8fac1bca1cdb80b6f8d',
  createdAt: '2026-11-21T09:59:58.123Z',
  type: 'conversation:message',
  payload: {
    conversation,
    message: {
      id: '5f6ce8fac1bca1cdb80b6f8c',
      received: '2026-11-21T09:59:58.100Z',
      author: { type: 'user', userId: '5963c0d619a30a2e00de36b8', displayName: 'Steve', user: { id: 'x' } },
      content: { type: 'text', text: 'Where is my **order**?' },
      source: { type: 'web', integrationId: '5e4af71a81966cfff3ef6550' },
    },
  },
};
const postback = {
  id: '5f6ce8fac1bca1cdb80b6f90',
  createdAt: '2026-11-21T09:59:59.000Z',
  type: 'conversation:postback',
  payload: {
    conversation,
    postback: { payload: '["refund","yes"]', actionName: 'Yes, refund' },
    user: { id: '5963c0d619a30a2e00de36b8' },
    source: { type: 'messenger' },
  },
};
const webhook = (...events: unknown[]) => ({
  app: { id: APP_ID },
  webhook: { id: '5f3c2c58ec0b0a000c8a2d6d', version: 'v2' },
  events,
});

describe('Zendesk verifyRequest with a webhook secret', () => {
  const body = webhook(userMessage);

  it('accepts a fresh HMAC-SHA256 of timestamp + body', () => {
    expect(adapter.verifyRequest(signedRequest(body), signed)).toBe(true);
    const early = new Date(NOW.getTime() - 299_000).toISOString();
    expect(adapter.verifyRequest(signedRequest(body, { timestamp: early }), signed)).toBe(true);
  });

  it('refuses a bad signature, tampering, stale or future timestamps and missing headers', () => {
    expect(adapter.verifyRequest(signedRequest(body, { secret: 'nope' }), signed)).toBe(false);
    const tampered = {
      ...signedRequest(body),
      rawBody: Buffer.from(JSON.stringify(body).replace('order', 'ordre')),
    };
    expect(adapter.verifyRequest(tampered, signed)).toBe(false);
    for (const offset of [-301_000, 301_000]) {
      const timestamp = new Date(NOW.getTime() + offset).toISOString();
      expect(adapter.verifyRequest(signedRequest(body, { timestamp }), signed)).toBe(false);
    }
    expect(adapter.verifyRequest(request(body), signed)).toBe(false);
    expect(adapter.verifyRequest(signedRequest(body, { timestamp: 'yesterday' }), signed)).toBe(false);
  });

  it('accepts the secret in X-API-Key (Sunshine Conversations integration webhooks), and only that secret', () => {
    const secret = signed.credentials.webhookSecret ?? '';
    expect(adapter.verifyRequest(request(body, { 'x-api-key': secret }), signed)).toBe(true);
    expect(adapter.verifyRequest(request(body, { 'x-api-key': `${secret}x` }), signed)).toBe(false);
    expect(adapter.verifyRequest(request(body, { 'x-api-key': '' }), signed)).toBe(false);
    // A signed request is judged by its signature: a right key cannot rescue a bad signature.
    const forged = signedRequest(body, { secret: 'nope' });
    expect(
      adapter.verifyRequest({ ...forged, headers: { ...forged.headers, 'x-api-key': secret } }, signed),
    ).toBe(false);
    // Without a webhook secret the key means nothing.
    expect(adapter.verifyRequest(request(body, { 'x-api-key': secret }), unsigned)).toBe(false);
  });

  it('does not accept basic auth once a webhook secret is set', () => {
    expect(
      adapter.verifyRequest(request(body, { authorization: basic(keys.keyId, keys.keySecret) }), signed),
    ).toBe(false);
  });

  it('never throws; accepts exactly a matching signature with a fresh timestamp (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.option(
          fc.oneof(
            fc.string(),
            fc.integer({ min: 0, max: 2 * NOW_SECONDS }).map(String),
            fc
              .integer({ min: -600, max: 600 })
              .map((s) => new Date((NOW_SECONDS + s) * 1000).toISOString().replace('.000', '')),
          ),
          { nil: undefined },
        ),
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        fc.boolean(),
        (body, timestamp, signature, secret, signCorrectly) => {
          const rawBody = Buffer.from(body);
          const good =
            timestamp === undefined
              ? undefined
              : createHmac('sha256', secret)
                  .update(Buffer.concat([Buffer.from(timestamp), rawBody]))
                  .digest('base64');
          const sent = signCorrectly ? good : signature;
          const result = verifyZendeskSignature({
            rawBody,
            timestamp,
            signature: sent,
            webhookSecret: secret,
            nowSeconds: NOW_SECONDS,
          });
          const seconds =
            timestamp === undefined
              ? Number.NaN
              : /^\d{1,15}$/.test(timestamp)
                ? Number(timestamp)
                : /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(timestamp)
                  ? Date.parse(timestamp) / 1000
                  : Number.NaN;
          const fresh = Math.abs(NOW_SECONDS - seconds) <= ZENDESK_REPLAY_WINDOW_SECONDS;
          expect(result).toBe(secret !== '' && fresh && sent !== undefined && sent === good);
        },
      ),
    );
  });
});

describe('Zendesk verifyRequest without a webhook secret (basic auth)', () => {
  const body = webhook(userMessage);

  it('accepts the key id and secret as HTTP Basic credentials', () => {
    expect(
      adapter.verifyRequest(request(body, { authorization: basic(keys.keyId, keys.keySecret) }), unsigned),
    ).toBe(true);
    expect(
      adapter.verifyRequest(
        request(body, {
          Authorization: `basic  ${Buffer.from(`${keys.keyId}:${keys.keySecret}`).toString('base64')}`,
        }),
        unsigned,
      ),
    ).toBe(true);
  });

  it('refuses wrong credentials, no header, another scheme, a signature alone and a connection without keys', () => {
    expect(
      adapter.verifyRequest(request(body, { authorization: basic(keys.keyId, 'wrong') }), unsigned),
    ).toBe(false);
    expect(adapter.verifyRequest(request(body), unsigned)).toBe(false);
    expect(
      adapter.verifyRequest(request(body, { authorization: `Bearer ${keys.keySecret}` }), unsigned),
    ).toBe(false);
    expect(adapter.verifyRequest(signedRequest(body), unsigned)).toBe(false);
    const noKeys = { ...unsigned, credentials: { appId: APP_ID } };
    expect(adapter.verifyRequest(request(body, { authorization: basic('', '') }), noKeys)).toBe(false);
  });

  it('never throws on arbitrary headers (property)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        fc.string(),
        (header, id, secret) => {
          const result = verifyZendeskBasicAuth(header, id, secret);
          const expected = id !== '' && secret !== '' && header === basic(id, secret);
          if (expected) expect(result).toBe(true);
          if (header === undefined || id === '' || secret === '') expect(result).toBe(false);
        },
      ),
    );
  });
});

describe('Zendesk parseIncoming', () => {
  it('normalizes a user text message', () => {
    expect(adapter.parseIncoming(request(webhook(userMessage)), signed)).toEqual([
      {
        externalMessageId: '5f6ce8fac1bca1cdb80b6f8c',
        externalSessionKey: 'c0ffee0123456789abcdef01',
        text: 'Where is my **order**?',
        metadata: {
          conversationId: 'c0ffee0123456789abcdef01',
          userId: '5963c0d619a30a2e00de36b8',
          messageId: '5f6ce8fac1bca1cdb80b6f8c',
          displayName: 'Steve',
          sourceType: 'web',
        },
        timestamp: '2026-11-21T09:59:58.100Z',
        channelUserId: '5963c0d619a30a2e00de36b8',
      },
    ]);
  });

  it('turns a postback and a tapped reply button into action events', () => {
    const tapped = {
      ...userMessage,
      payload: {
        ...userMessage.payload,
        message: {
          ...userMessage.payload.message,
          id: '5f6ce8fac1bca1cdb80b6f91',
          content: { type: 'text', text: 'Medium', payload: '["size","size-m"]' },
        },
      },
    };
    const [fromPostback, fromReply] = adapter.parseIncoming(request(webhook(postback, tapped)), signed);
    expect(fromPostback).toEqual({
      externalMessageId: 'postback:5f6ce8fac1bca1cdb80b6f90',
      externalSessionKey: 'c0ffee0123456789abcdef01',
      text: 'Yes, refund',
      metadata: {
        conversationId: 'c0ffee0123456789abcdef01',
        userId: '5963c0d619a30a2e00de36b8',
        sourceType: 'messenger',
      },
      timestamp: '2026-11-21T09:59:59.000Z',
      actionEvent: { actionId: 'refund', value: 'yes', type: 'button', title: 'Yes, refund' },
      channelUserId: '5963c0d619a30a2e00de36b8',
    });
    expect(fromReply).toMatchObject({
      text: 'Medium',
      actionEvent: { actionId: 'size', value: 'size-m', type: 'button', title: 'Medium' },
    });
  });

  it('ignores business messages, content without text and other event types', () => {
    const withMessage = (message: Record<string, unknown>) => ({
      ...userMessage,
      payload: { ...userMessage.payload, message: { ...userMessage.payload.message, ...message } },
    });
    const ignored = webhook(
      withMessage({
        author: { type: 'business', displayName: 'Parley', userId: '5963c0d619a30a2e00de36b8' },
      }),
      withMessage({ content: { type: 'image', mediaUrl: 'https://media.smooch.io/x.jpg' } }),
      withMessage({ content: { type: 'location', coordinates: { lat: 45.5, long: -73.6 } } }),
      { ...userMessage, type: 'conversation:read' },
      { ...userMessage, type: 'conversation:typing' },
      { ...userMessage, type: 'conversation:create' },
      { ...userMessage, type: 'conversation:message:delivery:channel' },
    );
    expect(adapter.parseIncoming(request(ignored), signed)).toEqual([]);
    const caption = withMessage({
      content: { type: 'image', mediaUrl: 'https://x/y.jpg', text: 'my receipt' },
    });
    expect(adapter.parseIncoming(request(webhook(caption)), signed).map((m) => m.text)).toEqual([
      'my receipt',
    ]);
    expect(
      adapter.parseIncoming({ ...request(webhook()), body: undefined, rawBody: Buffer.from('{') }, signed),
    ).toEqual([]);
  });

  it('never throws on arbitrary JSON or arbitrary events (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(Array.isArray(adapter.parseIncoming({ ...request(value), body: value }, signed))).toBe(true);
        const events = webhook(
          value,
          { ...userMessage, payload: value },
          { ...postback, payload: { conversation, postback: value } },
        );
        expect(Array.isArray(adapter.parseIncoming({ ...request(events), body: events }, signed))).toBe(true);
      }),
    );
  });

  it('reads the connection identifier (app id) from the body', () => {
    expect(adapter.connectionIdentifier(request(webhook()))).toBe(APP_ID);
    expect(adapter.connectionIdentifier(request({ events: [] }))).toBeNull();
  });
});

describe('Zendesk transformOutput', () => {
  it('keeps markdown and renders buttons and select options as reply actions', () => {
    const actionSet: ActionSet = {
      prompt: 'Refund the **order**?',
      elements: [
        { type: 'button', id: 'refund', label: 'Yes', value: 'yes' },
        { type: 'select', id: 'reason', label: 'Reason', options: [{ label: 'Damaged', value: 'damaged' }] },
      ],
    };
    expect(toZendeskOutput({ text: 'Found it.', actionSet })).toEqual({
      messages: [
        {
          type: 'text',
          text: 'Found it.\n\nRefund the **order**?',
          actions: [
            { type: 'reply', text: 'Yes', payload: '["refund","yes"]' },
            { type: 'reply', text: 'Damaged', payload: '["reason","damaged"]' },
          ],
        },
      ],
    });
  });

  it('splits long text at 4,096 characters with the actions on the last message', () => {
    const out = toZendeskOutput({
      text: 'b'.repeat(9000),
      actionSet: { elements: [{ type: 'button', id: 'ok', label: 'OK' }] },
    });
    expect(out.messages.map((m) => [m.text.length, m.actions?.length ?? 0])).toEqual([
      [4096, 0],
      [4096, 0],
      [808, 1],
    ]);
    expect(toZendeskOutput({ text: '' })).toEqual({ messages: [] });
  });

  it('never exceeds 13 actions, 40-character labels, 1,000-character payloads or the text limit (property)', () => {
    const reply = outgoingReplyArbitrary({ maxTextLength: 9000, labelUnit: 'grapheme' });
    const len = (s: string) => Array.from(s).length;
    fc.assert(
      fc.property(reply, (r) => {
        if (r.actionSet !== undefined) expect(actionSetSchema.safeParse(r.actionSet).success).toBe(true);
        const { messages } = toZendeskOutput(r);
        messages.forEach((m, i) => {
          expect(len(m.text)).toBeGreaterThan(0);
          expect(len(m.text)).toBeLessThanOrEqual(ZENDESK_LIMITS.text);
          if (i < messages.length - 1) expect(m.actions).toBeUndefined();
          expect(m.actions?.length ?? 0).toBeLessThanOrEqual(ZENDESK_LIMITS.actions);
          for (const a of m.actions ?? []) {
            expect(a.type).toBe('reply');
            expect(len(a.text)).toBeGreaterThan(0);
            expect(len(a.text)).toBeLessThanOrEqual(ZENDESK_LIMITS.actionText);
            expect(len(a.payload)).toBeGreaterThan(0);
            expect(len(a.payload)).toBeLessThanOrEqual(ZENDESK_LIMITS.payload);
          }
        });
        const choices = r.actionSet?.elements.some((e) => e.type !== 'text_input') ?? false;
        expect(messages.at(-1)?.actions !== undefined).toBe(choices);
      }),
      { numRuns: 150 },
    );
  });
});
