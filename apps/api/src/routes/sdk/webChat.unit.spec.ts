import fc from 'fast-check';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { type RunAgentInput, userText } from './agUi.js';
import { tokenOf, WEB_CHAT_SUBPROTOCOL, webChatClientMessage } from './webChat.js';

const part = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const jwt = fc.tuple(part, part, part).map((p) => p.join('.'));
const request = (headers: Record<string, string>, query: Record<string, unknown> = {}) =>
  ({ headers, query }) as unknown as FastifyRequest;

describe('tokenOf (the SDK token of a WebSocket upgrade)', () => {
  it('reads the second subprotocol after parley.sdk.v1, whatever the spacing', () => {
    fc.assert(
      fc.property(jwt, fc.constantFrom(',', ', ', ' ,  '), (token, sep) => {
        expect(tokenOf(request({ 'sec-websocket-protocol': `${WEB_CHAT_SUBPROTOCOL}${sep}${token}` }))).toBe(
          token,
        );
      }),
    );
  });

  it('the same token from several places is that token; two different tokens are refused (null)', () => {
    fc.assert(
      fc.property(jwt, jwt, (a, b) => {
        const both = request(
          { 'sec-websocket-protocol': `${WEB_CHAT_SUBPROTOCOL}, ${a}`, 'x-sdk-token': b },
          {
            token: a,
          },
        );
        expect(tokenOf(both)).toBe(a === b ? a : null);
      }),
    );
  });

  it('ignores other subprotocol lists; no token at all is undefined', () => {
    fc.assert(
      fc.property(jwt, (token) => {
        expect(tokenOf(request({ 'sec-websocket-protocol': `other.v1, ${token}` }))).toBeUndefined();
        expect(
          tokenOf(request({ 'sec-websocket-protocol': `${WEB_CHAT_SUBPROTOCOL}, ${token}, x` })),
        ).toBeUndefined();
      }),
    );
    expect(tokenOf(request({}))).toBeUndefined();
    expect(tokenOf(request({}, { token: ['a', 'b'] }))).toBeNull();
  });
});

describe('webChatClientMessage', () => {
  it('accepts every well-formed message and refuses unknown keys', () => {
    const message = fc.oneof(
      fc.record(
        {
          type: fc.constant('message' as const),
          text: fc.string({ minLength: 1, maxLength: 200 }),
          clientMessageId: fc.string({ minLength: 1, maxLength: 128 }),
        },
        { requiredKeys: ['type', 'text'] },
      ),
      fc.record(
        {
          type: fc.constant('resume' as const),
          sessionId: fc.string({ minLength: 1, maxLength: 256 }),
          after: fc.bigInt({ min: 0n, max: 10n ** 17n }).map(String),
        },
        { requiredKeys: ['type', 'sessionId'] },
      ),
      fc.constant({ type: 'ping' as const }),
    );
    fc.assert(
      fc.property(message, (m) => {
        expect(webChatClientMessage.parse(m)).toEqual(m);
        expect(webChatClientMessage.safeParse({ ...m, extra: 1 }).success).toBe(false);
      }),
    );
  });

  it('refuses an `after` that is not a reply event number', () => {
    for (const after of ['-1', '1.5', 'abc', '', '1234567890123456789']) {
      expect(webChatClientMessage.safeParse({ type: 'resume', sessionId: 's', after }).success).toBe(false);
    }
  });
});

describe('userText (the new input of an AG-UI run)', () => {
  const run = (messages: RunAgentInput['messages']): RunAgentInput => ({
    threadId: 't',
    runId: 'r',
    messages,
  });

  it('is the last user message: its string, or its text parts joined by new lines', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
          { minLength: 1, maxLength: 4 },
        ),
        (texts) => {
          expect(userText(run([{ id: 'u', role: 'user', content: texts[0]! }]))).toBe(texts[0]);
          const parts = texts.map((text) => ({ type: 'text' as const, text }));
          expect(userText(run([{ id: 'u', role: 'user', content: parts }]))).toBe(texts.join('\n'));
        },
      ),
    );
  });

  it('refuses a last message that is not the user’s, or has no text', () => {
    for (const last of [
      { id: 'a', role: 'assistant' as const, content: 'hi' },
      { id: 'u', role: 'user' as const, content: '   ' },
      { id: 'u', role: 'user' as const },
    ]) {
      expect(() => userText(run([last]))).toThrow(/last message must be a user message/);
    }
  });
});
