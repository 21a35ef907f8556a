import { createHmac } from 'node:crypto';
import { actionSetSchema } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createInstagramAdapter } from './instagramAdapter.js';
import { INSTAGRAM_LIMITS, splitTextBytes, toInstagramOutput } from './instagramTransform.js';

const APP_SECRET = 'meta-app-secret';
const IG_ID = '17841405822304914';
const IGSID = '1254459154682919';
const connection = testConnection('instagram', IG_ID, {
  accessToken: 'IGQW-token',
  appSecret: APP_SECRET,
  verifyToken: 'verify-me',
});
const adapter = createInstagramAdapter();

// Shapes from the Instagram messaging webhook reference (messages, messaging_postbacks, echoes).
const envelope = (...messaging: Record<string, unknown>[]) => ({
  object: 'instagram',
  entry: [{ id: IG_ID, time: 1569262486134, messaging }],
});
const from = { sender: { id: IGSID }, recipient: { id: IG_ID }, timestamp: 1569262485349 };
const textPayload = envelope({
  ...from,
  message: { mid: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx', text: 'Is this still available?' },
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
    url: `https://parley.example/api/v1/channels/instagram/webhook/${IG_ID}`,
    query: {},
  };
};

describe('Instagram verifyRequest', () => {
  it('accepts a request signed with the app secret and refuses others', () => {
    expect(adapter.verifyRequest(request(textPayload), connection)).toBe(true);
    expect(adapter.verifyRequest(request(textPayload, 'other'), connection)).toBe(false);
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

describe('Instagram parseIncoming', () => {
  it('normalizes a text message (spec 001 §2.1)', () => {
    expect(adapter.parseIncoming(request(textPayload), connection)).toEqual([
      {
        externalMessageId: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx',
        externalSessionKey: IGSID,
        text: 'Is this still available?',
        metadata: {
          senderId: IGSID,
          recipientId: IG_ID,
          messageId: 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQx',
          messageType: 'text',
          entryId: IG_ID,
        },
        timestamp: '2019-09-23T18:14:45.349Z',
        channelUserId: IGSID,
      },
    ]);
  });

  it('gives quick reply taps as action events', () => {
    const payload = envelope({
      ...from,
      message: { mid: 'ig_qr', text: 'Yes', quick_reply: { payload: '["confirm","yes"]' } },
    });
    expect(adapter.parseIncoming(request(payload), connection).map((m) => m.actionEvent)).toEqual([
      { actionId: 'confirm', value: 'yes', type: 'button', title: 'Yes' },
    ]);
  });

  it('ignores echoes, deleted messages, reactions, reads, other accounts and other objects', () => {
    const ignored = envelope(
      {
        sender: { id: IG_ID },
        recipient: { id: IGSID },
        timestamp: 1569262485349,
        message: { mid: 'ig_echo', text: 'our reply', is_echo: true },
      },
      { ...from, message: { mid: 'ig_del', is_deleted: true } },
      { ...from, message: { mid: 'ig_unsup', is_unsupported: true } },
      { ...from, reaction: { mid: 'ig_echo', action: 'react', reaction: 'love', emoji: '❤' } },
      { ...from, read: { mid: 'ig_echo' } },
      {
        ...from,
        message: { mid: 'ig_story', attachments: [{ type: 'story_mention', payload: { url: 'x' } }] },
      },
    );
    expect(adapter.parseIncoming(request(ignored), connection)).toEqual([]);
    expect(adapter.parseIncoming(request(textPayload), { ...connection, externalIdentifier: '1' })).toEqual(
      [],
    );
    expect(adapter.parseIncoming(request({ ...textPayload, object: 'page' }), connection)).toEqual([]);
  });

  it('reads the connection identifier and answers the verify-token challenge', async () => {
    expect(adapter.connectionIdentifier(request(textPayload))).toBe(IG_ID);
    const lookup = async (type: string, token: string) =>
      type === 'instagram' && token === 'verify-me' ? connection : null;
    const query = { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '42' };
    const req = { headers: {}, body: undefined, rawBody: Buffer.alloc(0), url: 'https://x', query };
    expect(await adapter.challenge?.(req, lookup)).toEqual({ status: 200, body: '42' });
    expect(
      await adapter.challenge?.({ ...req, query: { ...query, 'hub.verify_token': 'no' } }, lookup),
    ).toEqual({
      status: 403,
      body: 'Forbidden',
    });
  });
});

describe('Instagram transformOutput', () => {
  it('renders buttons as quick replies on the prompt', () => {
    expect(
      toInstagramOutput({
        text: 'Thanks!',
        actionSet: {
          prompt: 'Rate us',
          elements: [
            { type: 'button', id: 'good', label: 'Good' },
            { type: 'button', id: 'bad', label: 'Bad', value: 'b' },
          ],
        },
      }),
    ).toEqual({
      messages: [
        { text: 'Thanks!' },
        {
          text: 'Rate us',
          quick_replies: [
            { content_type: 'text', title: 'Good', payload: 'good' },
            { content_type: 'text', title: 'Bad', payload: '["bad","b"]' },
          ],
        },
      ],
    });
  });

  it('splits long text at 1000 UTF-8 bytes', () => {
    expect(toInstagramOutput({ text: 'a'.repeat(2500) }).messages.map((m) => m.text.length)).toEqual([
      1000, 1000, 500,
    ]);
    expect(splitTextBytes('é'.repeat(600), 1000).map((t) => Buffer.byteLength(t))).toEqual([1000, 200]);
  });

  it('never exceeds 13 quick replies or 1000 bytes of text (property)', () => {
    const reply = outgoingReplyArbitrary({
      maxTextLength: 3000,
      textUnit: 'grapheme',
      promptUnit: 'grapheme',
    });
    fc.assert(
      fc.property(reply, (r) => {
        if (r.actionSet !== undefined) expect(actionSetSchema.safeParse(r.actionSet).success).toBe(true);
        for (const m of toInstagramOutput(r).messages) {
          expect(Buffer.byteLength(m.text)).toBeLessThanOrEqual(INSTAGRAM_LIMITS.textBytes);
          expect(m.text.length).toBeGreaterThan(0);
          expect(m.quick_replies?.length ?? 0).toBeLessThanOrEqual(INSTAGRAM_LIMITS.quickReplies);
          for (const q of m.quick_replies ?? []) {
            expect(Array.from(q.title).length).toBeLessThanOrEqual(INSTAGRAM_LIMITS.quickReplyTitle);
            expect(Array.from(q.payload).length).toBeLessThanOrEqual(INSTAGRAM_LIMITS.payload);
          }
        }
      }),
    );
  });
});
