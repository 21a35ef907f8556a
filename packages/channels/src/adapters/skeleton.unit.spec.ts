import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../adapter.js';
import { testConnection } from '../testing/standInServer.js';
import type { NormalizedMessage, OutgoingMessage, OutgoingReply } from '../types.js';
import { jsonWebhook } from './jsonWebhook.js';
import { storedOutput } from './storedOutput.js';

interface Output {
  messages: string[];
}
const render = (reply: OutgoingReply): Output => ({ messages: [`rendered: ${reply.text}`] });
const queued = (channelOutput: unknown): OutgoingMessage => ({
  externalSessionKey: 'user-1',
  reply: { text: 'hello' },
  channelOutput,
  metadata: {},
  messageId: 'msg_1',
});

describe('storedOutput', () => {
  it('sends what transformOutput stored with the message', () => {
    const stored = { messages: ['stored'] };
    expect(storedOutput(queued(stored), 'messages', render)).toBe(stored);
  });

  it('renders the reply when nothing of the adapter’s shape was stored', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constant(undefined),
          fc.constant(null),
          fc.string(),
          fc.array(fc.string()),
          fc.record({ messages: fc.oneof(fc.string(), fc.integer(), fc.constant(null)) }),
          fc.record({ bodies: fc.array(fc.string()) }),
        ),
        (channelOutput) => {
          expect(storedOutput(queued(channelOutput), 'messages', render)).toEqual({
            messages: ['rendered: hello'],
          });
        },
      ),
    );
  });
});

describe('jsonWebhook', () => {
  const message: NormalizedMessage = {
    externalMessageId: 'm1',
    externalSessionKey: 'user-1',
    text: 'hi',
    timestamp: '2026-01-01T00:00:00.000Z',
    metadata: {},
  };
  const parts = jsonWebhook({
    parse: (body, connection) =>
      (body as { to?: string }).to === connection.externalIdentifier ? [message] : [],
    identify: (body) => (body as { to?: string } | undefined)?.to ?? null,
    render,
  });
  const connection = testConnection('messenger', 'page-1', {});
  const request = (body: unknown, rawBody: string, contentType = 'application/json'): InboundRequest => ({
    headers: { 'content-type': contentType },
    body,
    rawBody: Buffer.from(rawBody),
    url: 'https://parley.test/hook',
    query: {},
  });

  it('reads the parsed body, or the raw bytes when the route did not parse them', () => {
    for (const req of [request({ to: 'page-1' }, '{}'), request(undefined, '{"to":"page-1"}')]) {
      expect(parts.checkBody(req)).toBeNull();
      expect(parts.connectionIdentifier(req)).toBe('page-1');
      expect(parts.parseIncoming(req, connection)).toEqual([message]);
    }
  });

  it('refuses bodies that are not JSON objects and identifies no connection for them', () => {
    expect(parts.checkBody(request(undefined, '<xml/>', 'application/xml'))).toBe('content_type_unsupported');
    const malformed = request(undefined, 'not json');
    expect(parts.checkBody(malformed)).toBe('body_malformed');
    expect(parts.connectionIdentifier(malformed)).toBeNull();
  });

  it('renders replies with the platform’s renderer', () => {
    expect(parts.transformOutput({ text: 'yo' })).toEqual({ messages: ['rendered: yo'] });
  });
});
