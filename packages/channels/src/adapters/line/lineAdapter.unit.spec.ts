import { createHmac } from 'node:crypto';
import { type ActionSet, actionSetSchema } from '@parley/events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createLineAdapter, lineRetryKey, verifyLineSignature } from './lineAdapter.js';
import { cutUtf16, LINE_LIMITS, splitLineText, toLineOutput } from './lineTransform.js';

const SECRET = 'line-channel-secret-1';
const BOT_USER_ID = 'U0123456789abcdef0123456789abcdef';
const USER_ID = 'U4af4980629a1b2c3d4e5f60718293a4b';
const adapter = createLineAdapter();
const connection = testConnection('line', BOT_USER_ID, {
  channelAccessToken: 'line-access-token',
  channelSecret: SECRET,
});

const sign = (raw: string, secret = SECRET) => createHmac('sha256', secret).update(raw).digest('base64');

const request = (body: unknown, options: { secret?: string } = {}): InboundRequest => {
  const raw = JSON.stringify(body);
  return {
    headers: { 'content-type': 'application/json', 'x-line-signature': sign(raw, options.secret) },
    body: undefined,
    rawBody: Buffer.from(raw),
    url: 'https://parley.example/api/v1/channels/line/webhook',
    query: {},
  };
};

// Shapes from the LINE Messaging API webhook reference (message, postback, follow, join, unsend...).
const base = {
  mode: 'active',
  timestamp: 1_763_719_200_000,
  source: { type: 'user', userId: USER_ID },
  webhookEventId: '01FZ74A0TDDPYRVKNK77XKC3ZR',
  deliveryContext: { isRedelivery: false },
};
const textEvent = {
  ...base,
  type: 'message',
  replyToken: '757913772c4646b784d4b7ce46d12671',
  message: { id: '444573844083572737', type: 'text', quoteToken: 'q3Plxr4AgKd...', text: 'Hello, world' },
};
const postbackEvent = {
  ...base,
  type: 'postback',
  webhookEventId: '01FZ74ASS536FW97EX38NKCZQK',
  replyToken: 'b60d432864f44d079f6d8efe86cf404b',
  postback: { data: '["size","size-m"]' },
};
const webhook = (...events: unknown[]) => ({ destination: BOT_USER_ID, events });

describe('LINE verifyRequest', () => {
  const body = webhook(textEvent);

  it('accepts the base64 HMAC-SHA256 of the raw body with the channel secret', () => {
    expect(adapter.verifyRequest(request(body), connection)).toBe(true);
  });

  it('refuses a wrong secret, a tampered body, a missing header and a connection without secret', () => {
    expect(adapter.verifyRequest(request(body, { secret: 'other' }), connection)).toBe(false);
    const tampered = {
      ...request(body),
      rawBody: Buffer.from(JSON.stringify(body).replace('Hello', 'Hullo')),
    };
    expect(adapter.verifyRequest(tampered, connection)).toBe(false);
    expect(adapter.verifyRequest({ ...request(body), headers: {} }, connection)).toBe(false);
    expect(adapter.verifyRequest(request(body), { ...connection, credentials: {} })).toBe(false);
  });

  it('never throws; accepts exactly the matching signature (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.option(fc.string(), { nil: undefined }),
        fc.string(),
        fc.boolean(),
        (body, signature, secret, signCorrectly) => {
          const rawBody = Buffer.from(body);
          const good = createHmac('sha256', secret).update(rawBody).digest('base64');
          const sent = signCorrectly ? good : signature;
          const result = verifyLineSignature(rawBody, sent, secret);
          expect(result).toBe(secret !== '' && sent === good);
        },
      ),
    );
  });
});

describe('LINE parseIncoming', () => {
  it('normalizes a 1:1 text message: message id, user session, reply token in metadata', () => {
    expect(adapter.parseIncoming(request(webhook(textEvent)), connection)).toEqual([
      {
        externalMessageId: '444573844083572737',
        externalSessionKey: USER_ID,
        text: 'Hello, world',
        metadata: {
          sourceType: 'user',
          chatId: USER_ID,
          userId: USER_ID,
          replyToken: '757913772c4646b784d4b7ce46d12671',
          eventTimestamp: 1_763_719_200_000,
          webhookEventId: '01FZ74A0TDDPYRVKNK77XKC3ZR',
          isRedelivery: false,
          messageId: '444573844083572737',
        },
        timestamp: '2025-11-21T10:00:00.000Z',
        channelUserId: USER_ID,
      },
    ]);
  });

  it('turns a postback into an action event keyed by webhookEventId', () => {
    const [message] = adapter.parseIncoming(request(webhook(postbackEvent)), connection);
    expect(message).toMatchObject({
      externalMessageId: '01FZ74ASS536FW97EX38NKCZQK',
      externalSessionKey: USER_ID,
      text: '',
      actionEvent: { actionId: 'size', value: 'size-m', type: 'button' },
      channelUserId: USER_ID,
    });
    const plain = adapter.parseIncoming(
      request(webhook({ ...postbackEvent, postback: { data: 'action=buy&itemid=111' } })),
      connection,
    );
    expect(plain[0]?.actionEvent).toEqual({
      actionId: 'action=buy&itemid=111',
      value: 'action=buy&itemid=111',
      type: 'button',
    });
  });

  it('keys group and room messages by the group or room (one session per group chat)', () => {
    const inGroup = {
      ...textEvent,
      source: { type: 'group', groupId: 'Ca56f94637c0123456789abcdef012345', userId: USER_ID },
    };
    const inRoom = {
      ...textEvent,
      message: { ...textEvent.message, id: '444573844083572738' },
      source: { type: 'room', roomId: 'Ra8dbf4673c0123456789abcdef012345' },
    };
    const [group, room] = adapter.parseIncoming(request(webhook(inGroup, inRoom)), connection);
    expect(group).toMatchObject({
      externalSessionKey: 'Ca56f94637c0123456789abcdef012345',
      channelUserId: USER_ID,
      metadata: { sourceType: 'group', chatId: 'Ca56f94637c0123456789abcdef012345', userId: USER_ID },
    });
    expect(room?.externalSessionKey).toBe('Ra8dbf4673c0123456789abcdef012345');
    expect(room?.channelUserId).toBeUndefined();
  });

  it('keeps the ids of a redelivered event, so the pipeline sees a duplicate', () => {
    const redelivered = { ...textEvent, deliveryContext: { isRedelivery: true } };
    const [first] = adapter.parseIncoming(request(webhook(textEvent)), connection);
    const [again] = adapter.parseIncoming(request(webhook(redelivered)), connection);
    expect(again?.externalMessageId).toBe(first?.externalMessageId);
    expect(again?.metadata.isRedelivery).toBe(true);
  });

  it('ignores follow, unfollow, join, leave, unsend, stickers, images, standby mode and verification', () => {
    const ignored = webhook(
      { ...base, type: 'follow', replyToken: 'r1', follow: { isUnblocked: false } },
      { ...base, type: 'unfollow' },
      { ...base, type: 'join', replyToken: 'r2', source: { type: 'group', groupId: 'C1' } },
      { ...base, type: 'leave', source: { type: 'group', groupId: 'C1' } },
      { ...base, type: 'unsend', unsend: { messageId: '325708' } },
      {
        ...textEvent,
        message: {
          id: '1',
          type: 'sticker',
          packageId: '446',
          stickerId: '1988',
          stickerResourceType: 'STATIC',
        },
      },
      { ...textEvent, message: { id: '2', type: 'image', contentProvider: { type: 'line' } } },
      { ...textEvent, mode: 'standby', replyToken: undefined },
    );
    expect(adapter.parseIncoming(request(ignored), connection)).toEqual([]);
    expect(adapter.parseIncoming(request(webhook()), connection)).toEqual([]);
    expect(
      adapter.parseIncoming(
        { ...request(webhook()), body: undefined, rawBody: Buffer.from('{') },
        connection,
      ),
    ).toEqual([]);
  });

  it('never throws on arbitrary JSON or arbitrary events (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(Array.isArray(adapter.parseIncoming({ ...request(value), body: value }, connection))).toBe(
          true,
        );
        const events = webhook(
          value,
          { ...textEvent, message: value },
          { ...postbackEvent, postback: value },
        );
        expect(Array.isArray(adapter.parseIncoming({ ...request(events), body: events }, connection))).toBe(
          true,
        );
      }),
    );
  });

  it('reads the connection identifier (destination) from the body', () => {
    expect(adapter.connectionIdentifier(request(webhook()))).toBe(BOT_USER_ID);
    expect(adapter.connectionIdentifier(request({ events: [] }))).toBeNull();
  });
});

describe('LINE transformOutput', () => {
  it('sends the text with postback quick reply items packing id and value', () => {
    const actionSet: ActionSet = {
      prompt: 'Which size?',
      elements: [
        { type: 'button', id: 'small', label: 'Small' },
        { type: 'select', id: 'size', label: 'Size', options: [{ label: 'Medium', value: 'size-m' }] },
        { type: 'text_input', id: 'note', label: 'Anything else?' },
      ],
    };
    expect(toLineOutput({ text: 'Sure.', actionSet })).toEqual({
      messages: [
        {
          type: 'text',
          text: 'Sure.\n\nWhich size?\n\nAnything else?',
          quickReply: {
            items: [
              {
                type: 'action',
                action: { type: 'postback', label: 'Small', data: 'small', displayText: 'Small' },
              },
              {
                type: 'action',
                action: {
                  type: 'postback',
                  label: 'Medium',
                  data: '["size","size-m"]',
                  displayText: 'Medium',
                },
              },
            ],
          },
        },
      ],
    });
  });

  it('puts quick replies on the last of several messages and a stand-in line when text is empty', () => {
    const actionSet: ActionSet = { elements: [{ type: 'button', id: 'ok', label: 'OK' }] };
    const long = toLineOutput({ text: 'a'.repeat(12_000), actionSet });
    expect(long.messages.map((m) => [m.text.length, m.quickReply !== undefined])).toEqual([
      [5000, false],
      [5000, false],
      [2000, true],
    ]);
    expect(toLineOutput({ text: '', actionSet }).messages[0]?.text).toBe('Choose an option');
    expect(toLineOutput({ text: '  ' }).messages).toEqual([]);
  });

  it('splits text into chunks of at most 5,000 UTF-16 units and keeps every character (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '\n', 'é', '😀', '字'), maxLength: 12_000 }),
        (text) => {
          const chunks = splitLineText(text);
          for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(LINE_LIMITS.text);
          expect(chunks.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('cuts labels without splitting surrogate pairs', () => {
    expect(cutUtf16('😀'.repeat(30), 20)).toBe(`${'😀'.repeat(9)}…`);
    expect(cutUtf16('Short', 20)).toBe('Short');
  });

  it('never exceeds 13 items, label 20, data 300 or text 5,000 for any ACTION_SET (property)', () => {
    const reply = outgoingReplyArbitrary({
      maxTextLength: 6000,
      textUnit: 'grapheme',
      labelUnit: 'grapheme',
    });
    fc.assert(
      fc.property(reply, (r) => {
        if (r.actionSet !== undefined) expect(actionSetSchema.safeParse(r.actionSet).success).toBe(true);
        const { messages } = toLineOutput(r);
        messages.forEach((m, i) => {
          expect(m.text.length).toBeGreaterThan(0);
          expect(m.text.length).toBeLessThanOrEqual(LINE_LIMITS.text);
          if (i < messages.length - 1) expect(m.quickReply).toBeUndefined();
          const items = m.quickReply?.items ?? [];
          expect(items.length).toBeLessThanOrEqual(LINE_LIMITS.quickReplyItems);
          for (const { action } of items) {
            expect(action.label.length).toBeGreaterThan(0);
            expect(action.label.length).toBeLessThanOrEqual(LINE_LIMITS.label);
            expect(action.data.length).toBeGreaterThan(0);
            expect(action.data.length).toBeLessThanOrEqual(LINE_LIMITS.postbackData);
            expect(action.displayText.length).toBeLessThanOrEqual(LINE_LIMITS.displayText);
          }
        });
        const choices = r.actionSet?.elements.some((e) => e.type !== 'text_input') ?? false;
        expect(messages.at(-1)?.quickReply !== undefined).toBe(choices);
      }),
      { numRuns: 150 },
    );
  });
});

describe('LINE retry key', () => {
  it('is a stable version 4 UUID per reply and part', () => {
    const key = lineRetryKey('msg_1', 0);
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(lineRetryKey('msg_1', 0)).toBe(key);
    expect(lineRetryKey('msg_1', 1)).not.toBe(key);
    expect(lineRetryKey('msg_2', 0)).not.toBe(key);
  });
});
