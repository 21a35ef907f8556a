import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { decodeAction } from '../shared.js';
import { createContactCenterAdapter, verifyContactCenterSecret } from './contactCenterAdapter.js';
import { parseContactCenterRequest } from './contactCenterPayload.js';
import {
  CONTACT_CENTER_LIMITS,
  type ContactCenterResponseBody,
  renderContactCenterResponse,
  toContactCenterMessages,
} from './contactCenterTransform.js';

const SECRET = 'cc-client-secret-42';
const NOW = new Date('2026-11-21T10:00:00.000Z');
const adapter = createContactCenterAdapter({ now: () => NOW });
const connection = testConnection('contact_center', 'stream-1', { clientSecret: SECRET });

// The Digital Bot Connector's turn request (Genesys Cloud "Digital Bot Connector" v2 postUtterance).
const utterance = (overrides: Record<string, unknown> = {}) => ({
  botId: 'parley-bot',
  botVersion: '1',
  botSessionId: '5f5a0e0c-9d2c-4a45-8d7c-2b0d8ad0f001',
  messageId: 'a1b2c3d4-0000-4000-8000-000000000001',
  inputMessage: { type: 'Text', text: 'I want to check my order' },
  languageCode: 'en-us',
  botSessionTimeout: 4320,
  genesysConversationId: 'c0ffee00-1111-4222-8333-444455556666',
  parameters: { customerTier: 'gold' },
  ...overrides,
});

const request = (body: unknown, headers: Record<string, string> = {}): InboundRequest => {
  const raw = JSON.stringify(body);
  return {
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.parse(raw) as unknown,
    rawBody: Buffer.from(raw),
    url: 'https://parley.example/api/v1/channels/contact_center/hooks/stream-1',
    query: {},
  };
};

const parse = (body: string) => JSON.parse(body) as ContactCenterResponseBody;

describe('contact_center: verification', () => {
  it('accepts the client secret as a bearer token or in the credential header', () => {
    expect(adapter.verifyRequest(request({}, { authorization: `Bearer ${SECRET}` }), connection)).toBe(true);
    expect(adapter.verifyRequest(request({}, { 'x-parley-client-secret': SECRET }), connection)).toBe(true);
    const custom = { ...connection, settings: { credentialHeader: 'x-bot-token' } };
    expect(adapter.verifyRequest(request({}, { 'X-Bot-Token': SECRET }), custom)).toBe(true);
    expect(adapter.verifyRequest(request({}, { 'x-parley-client-secret': SECRET }), custom)).toBe(false);
  });

  it('refuses a missing or wrong secret, and a connection without one', () => {
    expect(adapter.verifyRequest(request({}), connection)).toBe(false);
    expect(adapter.verifyRequest(request({}, { authorization: `Bearer ${SECRET}x` }), connection)).toBe(
      false,
    );
    expect(adapter.verifyRequest(request({}, { authorization: SECRET }), connection)).toBe(false);
    const none = testConnection('contact_center', 'stream-1', {});
    expect(adapter.verifyRequest(request({}, { authorization: 'Bearer ' }), none)).toBe(false);
  });

  it('never throws and accepts nothing but the exact secret (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (authorization, header, secret) => {
        const ok = verifyContactCenterSecret({ authorization, 'x-parley-client-secret': header }, secret);
        if (secret === '') expect(ok).toBe(false);
        if (ok) expect(header === secret || authorization.trim().endsWith(secret)).toBe(true);
      }),
    );
  });
});

describe('contact_center: parsing', () => {
  it('reads a Text input into one message keyed by the bot session', () => {
    expect(adapter.parseIncoming(request(utterance()), connection)).toEqual([
      {
        externalMessageId: 'a1b2c3d4-0000-4000-8000-000000000001',
        externalSessionKey: '5f5a0e0c-9d2c-4a45-8d7c-2b0d8ad0f001',
        text: 'I want to check my order',
        metadata: {
          botSessionId: '5f5a0e0c-9d2c-4a45-8d7c-2b0d8ad0f001',
          botId: 'parley-bot',
          botVersion: '1',
          languageCode: 'en-us',
          genesysConversationId: 'c0ffee00-1111-4222-8333-444455556666',
          parameters: { customerTier: 'gold' },
        },
        timestamp: NOW.toISOString(),
      },
    ]);
  });

  it('reads a quick reply (Structured ButtonResponse) into an actionEvent', () => {
    const [message] = parseContactCenterRequest(
      utterance({
        inputMessage: {
          type: 'Structured',
          content: [
            {
              contentType: 'ButtonResponse',
              buttonResponse: {
                type: 'QuickReply',
                text: 'Track order',
                payload: JSON.stringify(['track', 'order-77']),
              },
            },
          ],
        },
      }),
      NOW,
    );
    expect(message?.text).toBe('Track order');
    expect(message?.actionEvent).toEqual({ actionId: 'track', value: 'order-77', type: 'button' });
  });

  it('gives no message for a request without ids or input', () => {
    expect(parseContactCenterRequest(utterance({ messageId: '' }), NOW)).toEqual([]);
    expect(parseContactCenterRequest(utterance({ botSessionId: undefined }), NOW)).toEqual([]);
    expect(parseContactCenterRequest(utterance({ inputMessage: { type: 'Text', text: '  ' } }), NOW)).toEqual(
      [],
    );
    expect(parseContactCenterRequest('nope', NOW)).toEqual([]);
  });

  it('never throws on arbitrary bodies and gives at most one message (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({ botSessionId: fc.string(), messageId: fc.string(), inputMessage: fc.anything() }),
        ),
        (body) => {
          const messages = parseContactCenterRequest(body, NOW);
          expect(messages.length).toBeLessThanOrEqual(1);
          for (const m of messages) expect(m.externalMessageId).not.toBe('');
        },
      ),
    );
  });
});

describe('contact_center: responses', () => {
  it('answers the reply as MoreData with Text messages, Complete when the session ended', () => {
    const res = renderContactCenterResponse({
      kind: 'reply',
      reply: { text: 'Order 77 ships today.' },
      sessionEnded: false,
    });
    expect(res).toMatchObject({ status: 200, contentType: 'application/json; charset=utf-8' });
    expect(parse(res.body)).toEqual({
      botState: 'MoreData',
      replymessages: [{ type: 'Text', text: 'Order 77 ships today.' }],
    });
    const done = renderContactCenterResponse({ kind: 'reply', reply: { text: 'Bye' }, sessionEnded: true });
    expect(parse(done.body).botState).toBe('Complete');
  });

  it('renders an ACTION_SET as a Structured message of quick replies whose payload carries id and value', () => {
    const messages = toContactCenterMessages({
      text: 'What next?',
      actionSet: {
        prompt: 'Choose:',
        elements: [
          { type: 'button', id: 'track', label: 'Track', value: 'order-77' },
          { type: 'button', id: 'agent', label: 'Agent' },
          { type: 'select', id: 'lang', label: 'Language', options: [{ label: 'English', value: 'en' }] },
          { type: 'text_input', id: 'note', label: 'Or type a note' },
        ],
      },
    });
    expect(messages).toEqual([
      { type: 'Text', text: 'What next?' },
      {
        type: 'Structured',
        text: 'Choose:\nOr type a note',
        content: [
          {
            contentType: 'QuickReply',
            quickReply: { text: 'Track', payload: '["track","order-77"]', action: 'Message' },
          },
          { contentType: 'QuickReply', quickReply: { text: 'Agent', payload: 'agent', action: 'Message' } },
          {
            contentType: 'QuickReply',
            quickReply: { text: 'English', payload: '["lang","en"]', action: 'Message' },
          },
        ],
      },
    ]);
  });

  it('answers errors as Failed with errorInfo in the connector’s format', () => {
    const failed = renderContactCenterResponse({ kind: 'error', error: 'turn_failed' });
    expect(failed.status).toBe(200);
    expect(parse(failed.body)).toEqual({
      botState: 'Failed',
      replymessages: [],
      errorInfo: { errorCode: 'TurnFailed', errorMessage: 'The bot could not answer this message' },
    });
    expect(
      parse(renderContactCenterResponse({ kind: 'error', error: 'turn_timeout' }).body).errorInfo?.errorCode,
    ).toBe('TurnTimeout');
    expect(renderContactCenterResponse({ kind: 'error', error: 'busy' }).status).toBe(503);
    expect(renderContactCenterResponse({ kind: 'error', error: 'unavailable' }).status).toBe(503);
    expect(renderContactCenterResponse({ kind: 'no_message' }).status).toBe(400);
    expect(parse(renderContactCenterResponse({ kind: 'connection_inactive' }).body).botState).toBe('Failed');
  });

  it('is valid JSON within the limits for arbitrary text and ACTION_SETs, payloads round-trip (property)', () => {
    // Labels of up to 200 code points, past the schema's 200 UTF-16 units: the connector counts code points.
    const replies = outgoingReplyArbitrary({
      textUnit: 'binary',
      maxTextLength: 20_000,
      labelUnit: 'binary',
      valid: false,
    });
    fc.assert(
      fc.property(replies, fc.boolean(), (reply, ended) => {
        const { text } = reply;
        const elements = reply.actionSet?.elements;
        const res = renderContactCenterResponse({ kind: 'reply', reply, sessionEnded: ended });
        const body = parse(res.body);
        expect(body.botState).toBe(ended ? 'Complete' : 'MoreData');
        expect(body.replymessages.length).toBeLessThanOrEqual(CONTACT_CENTER_LIMITS.messages);
        const all = elements ?? [];
        const ids = all.map((e) => e.id);
        for (const m of body.replymessages) {
          expect(Array.from(m.text).length).toBeLessThanOrEqual(CONTACT_CENTER_LIMITS.text);
          if (m.type !== 'Structured') continue;
          expect(m.content.length).toBeLessThanOrEqual(CONTACT_CENTER_LIMITS.quickReplies);
          for (const { quickReply } of m.content) {
            expect(Array.from(quickReply.text).length).toBeLessThanOrEqual(
              CONTACT_CENTER_LIMITS.quickReplyText,
            );
            expect(Array.from(quickReply.payload).length).toBeLessThanOrEqual(CONTACT_CENTER_LIMITS.payload);
            const decoded = decodeAction(quickReply.payload);
            expect(ids).toContain(decoded.actionId);
            const owners = all.filter((e) => e.id === decoded.actionId);
            const owner = owners[0];
            if (owners.length === 1 && owner?.type === 'button') {
              // A value that does not fit the payload with its id is dropped: the click reports the id.
              const value = owner.value ?? owner.id;
              const pair = Array.from(JSON.stringify([owner.id, value])).length;
              expect(decoded.value).toBe(pair <= CONTACT_CENTER_LIMITS.payload ? value : owner.id);
            }
          }
        }
        if (text.trim() === '' && elements === undefined) expect(body.replymessages).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
