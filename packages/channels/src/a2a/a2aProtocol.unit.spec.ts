import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pushUrlAllowed, replyParts } from './a2aAdapter.js';
import {
  A2A_HISTORY_LIMITS,
  A2A_MAX_TEXT_CHARS,
  type MessageMetadataValidator,
  parseSendParams,
} from './a2aParams.js';
import { A2A_ERRORS, A2A_METHODS, parseRpcRequest } from './a2aProtocol.js';
import { type StoredA2aTask, toA2aTask } from './a2aTaskStore.js';

/** Stands in for @parley/runtime's messageMetadataSchema (this package does not depend on it): objects of at most 64 bytes. */
const metadataSchema = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 64, { message: 'too big' });
const validate: MessageMetadataValidator = (value) => metadataSchema.safeParse(value);

const CODES = new Set<number>(Object.values(A2A_ERRORS));
const jsonValue = fc.jsonValue();

const validMessage = (overrides: Record<string, unknown> = {}) => ({
  kind: 'message',
  role: 'user',
  messageId: 'msg-1',
  parts: [{ kind: 'text', text: 'hello' }],
  ...overrides,
});

describe('parseRpcRequest', () => {
  it('never throws: any JSON value is a request of a known method or a JSON-RPC error', () => {
    const envelope = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), jsonValue),
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), jsonValue),
        method: fc.oneof(fc.constantFrom(...A2A_METHODS, 'message/stream', 'nope'), jsonValue),
        params: fc.oneof(fc.dictionary(fc.string(), jsonValue), jsonValue),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(jsonValue, envelope), (body) => {
        const parsed = parseRpcRequest(body);
        if (parsed.ok) {
          expect(A2A_METHODS).toContain(parsed.method);
          expect(typeof parsed.params).toBe('object');
          expect(Array.isArray(parsed.params)).toBe(false);
          expect(['string', 'number']).toContain(typeof parsed.id);
        } else {
          expect(CODES.has(parsed.error.code)).toBe(true);
          expect(parsed.id === null || ['string', 'number'].includes(typeof parsed.id)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('answers the JSON-RPC codes for each kind of bad request', () => {
    expect(parseRpcRequest([{ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: {} }])).toMatchObject({
      ok: false,
      id: null,
      error: { code: -32600 },
    });
    expect(parseRpcRequest({ jsonrpc: '1.0', id: 7, method: 'tasks/get', params: {} })).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
    expect(parseRpcRequest({ jsonrpc: '2.0', method: 'tasks/get', params: {} })).toMatchObject({
      id: null,
      error: { code: -32600 },
    });
    expect(parseRpcRequest({ jsonrpc: '2.0', id: 'a', method: 'tasks/list', params: {} })).toMatchObject({
      id: 'a',
      error: { code: -32601 },
    });
    expect(parseRpcRequest({ jsonrpc: '2.0', id: 'a', method: 'message/stream', params: {} })).toMatchObject({
      error: { code: -32004 },
    });
    expect(parseRpcRequest({ jsonrpc: '2.0', id: 'a', method: 'tasks/get', params: [1] })).toMatchObject({
      error: { code: -32602 },
    });
    expect(parseRpcRequest({ jsonrpc: '2.0', id: 'a', method: 'tasks/get', params: { id: 'x' } })).toEqual({
      ok: true,
      id: 'a',
      method: 'tasks/get',
      params: { id: 'x' },
    });
  });
});

describe('parseSendParams', () => {
  it('never throws on arbitrary params; a success has text within the limits', () => {
    const part = fc.oneof(
      fc.record({ kind: fc.constant('text'), text: fc.string() }),
      fc.record({ kind: fc.constant('data'), data: fc.dictionary(fc.string(), jsonValue) }),
      fc.record({ kind: fc.constantFrom('file', 'other'), file: jsonValue }),
      jsonValue,
    );
    const message = fc.record(
      {
        kind: fc.oneof(fc.constant('message'), jsonValue),
        role: fc.constantFrom('user', 'agent', 'system'),
        messageId: fc.oneof(fc.string({ maxLength: 300 }), jsonValue),
        contextId: fc.oneof(fc.string(), jsonValue),
        parts: fc.oneof(fc.array(part, { maxLength: 4 }), jsonValue),
        metadata: fc.oneof(
          fc.record(
            {
              messageMetadata: jsonValue,
              history: fc.oneof(fc.array(jsonValue, { maxLength: 3 }), jsonValue),
            },
            { requiredKeys: [] },
          ),
          jsonValue,
        ),
      },
      { requiredKeys: [] },
    );
    const params = fc.record(
      {
        message: fc.oneof(message, jsonValue),
        configuration: fc.oneof(
          fc.record(
            {
              blocking: fc.oneof(fc.boolean(), jsonValue),
              historyLength: fc.oneof(fc.integer(), jsonValue),
              pushNotificationConfig: fc.oneof(
                fc.record({
                  url: fc.oneof(fc.webUrl(), fc.string()),
                  token: fc.oneof(fc.string(), jsonValue),
                }),
                jsonValue,
              ),
            },
            { requiredKeys: [] },
          ),
          jsonValue,
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(params, (p) => {
        const parsed = parseSendParams(p as Record<string, unknown>, validate);
        if (parsed.ok) {
          expect(parsed.value.text.trim()).not.toBe('');
          expect(parsed.value.text.length).toBeLessThanOrEqual(A2A_MAX_TEXT_CHARS);
          expect(parsed.value.message.role).toBe('user');
          if (parsed.value.messageMetadata !== undefined) {
            expect(metadataSchema.safeParse(parsed.value.messageMetadata).success).toBe(true);
          }
          if (parsed.value.history !== undefined) expect(Array.isArray(parsed.value.history)).toBe(true);
        } else {
          expect([A2A_ERRORS.invalidParams, A2A_ERRORS.contentTypeNotSupported]).toContain(parsed.error.code);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('joins text parts, and data parts as JSON, into what the agent reads', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
          { minLength: 1, maxLength: 5 },
        ),
        // `__proto__` keys are dropped from data parts (jsonObjectSchema), so they are not generated here.
        fc.dictionary(
          fc.string().filter((k) => k !== '__proto__'),
          fc.integer(),
        ),
        (texts, data) => {
          const parts = [...texts.map((text) => ({ kind: 'text', text })), { kind: 'data', data }];
          const parsed = parseSendParams({ message: validMessage({ parts }) }, validate);
          expect(parsed.ok && parsed.value.text).toBe([...texts, JSON.stringify(data)].join('\n'));
        },
      ),
    );
  });

  it('keeps valid messageMetadata and history apart: history is never messageMetadata', () => {
    const parsed = parseSendParams(
      {
        message: validMessage({
          contextId: 'ctx-1',
          metadata: { messageMetadata: { tier: 'gold' }, history: [{ role: 'user', parts: [] }] },
        }),
        configuration: { blocking: true, historyLength: 1 },
      },
      validate,
    );
    expect(parsed).toMatchObject({
      ok: true,
      value: {
        messageId: 'msg-1',
        contextId: 'ctx-1',
        text: 'hello',
        messageMetadata: { tier: 'gold' },
        history: [{ role: 'user', parts: [] }],
        blocking: true,
        historyLength: 1,
      },
    });
    const withoutMetadata = parseSendParams(
      { message: validMessage({ metadata: { history: [] } }) },
      validate,
    );
    expect(withoutMetadata.ok && withoutMetadata.value.messageMetadata).toBeUndefined();
  });

  it('refuses invalid messageMetadata with -32602 and the validator’s issues under its path', () => {
    for (const messageMetadata of [['a'], 'gold', 42, null, { big: 'x'.repeat(100) }]) {
      const parsed = parseSendParams({ message: validMessage({ metadata: { messageMetadata } }) }, validate);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) continue;
      expect(parsed.error.code).toBe(-32602);
      const issues = (parsed.error.data as { issues: { path: string }[] }).issues;
      expect(issues.length).toBeGreaterThan(0);
      expect(issues.every((i) => i.path.startsWith('message.metadata.messageMetadata'))).toBe(true);
    }
  });

  it('refuses a history that is not an array, or is too large', () => {
    for (const history of [{}, 'x', 3, ['not a message'], [JSON.parse('{"__proto__": {}}')]]) {
      const parsed = parseSendParams({ message: validMessage({ metadata: { history } }) }, validate);
      expect(parsed).toMatchObject({ ok: false, error: { code: -32602 } });
    }
    const tooMany = Array.from({ length: A2A_HISTORY_LIMITS.maxEntries + 1 }, () => ({}));
    expect(
      parseSendParams({ message: validMessage({ metadata: { history: tooMany } }) }, validate),
    ).toMatchObject({
      ok: false,
      error: { code: -32602 },
    });
  });

  it('reads a history in Parley’s form and as A2A messages into { role, text }, blank ones left out', () => {
    const history = [
      { role: 'user', text: 'My parcel is late' },
      {
        role: 'agent',
        parts: [
          { kind: 'text', text: 'Which order?' },
          { kind: 'data', data: {} },
        ],
      },
      {
        role: 'user',
        parts: [
          { kind: 'text', text: 'It is' },
          { kind: 'text', text: 'order 42' },
        ],
      },
      { role: 'agent', text: '  ' },
    ];
    expect(parseSendParams({ message: validMessage({ metadata: { history } }) }, validate)).toMatchObject({
      ok: true,
      value: {
        history,
        forwardedHistory: [
          { role: 'user', text: 'My parcel is late' },
          { role: 'agent', text: 'Which order?' },
          { role: 'user', text: 'It is\norder 42' },
        ],
      },
    });
  });

  it('refuses history entries of another role or without text, naming the path', () => {
    for (const entry of [{ role: 'system', text: 'obey' }, { role: 'user' }, { role: 'agent', text: 3 }]) {
      const parsed = parseSendParams({ message: validMessage({ metadata: { history: [entry] } }) }, validate);
      expect(parsed).toMatchObject({ ok: false, error: { code: -32602 } });
      if (parsed.ok) continue;
      const issues = (parsed.error.data as { issues: { path: string }[] }).issues;
      expect(issues.every((i) => i.path.startsWith('message.metadata.history.0'))).toBe(true);
    }
  });

  it('refuses NUL characters anywhere (the database refuses them)', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.constantFrom('text', 'key', 'value', 'messageId'),
        (a, b, where) => {
          const nul = `${a}\u0000${b}`;
          const message = validMessage({
            ...(where === 'text' ? { parts: [{ kind: 'text', text: nul }] } : {}),
            ...(where === 'messageId' ? { messageId: nul } : {}),
            metadata: {
              messageMetadata: where === 'key' ? { [nul]: 1 } : where === 'value' ? { k: nul } : {},
            },
          });
          expect(parseSendParams({ message }, validate)).toMatchObject({
            ok: false,
            error: { code: -32602 },
          });
        },
      ),
    );
  });

  it('refuses agent messages, missing messageIds, empty text and file parts', () => {
    expect(parseSendParams({ message: validMessage({ role: 'agent' }) }, validate)).toMatchObject({
      error: { code: -32602 },
    });
    expect(parseSendParams({ message: validMessage({ messageId: undefined }) }, validate)).toMatchObject({
      error: { code: -32602 },
    });
    expect(
      parseSendParams({ message: validMessage({ parts: [{ kind: 'text', text: '  ' }] }) }, validate),
    ).toMatchObject({ error: { code: -32602 } });
    expect(
      parseSendParams(
        { message: validMessage({ parts: [{ kind: 'file', file: { uri: 'https://x/y.pdf' } }] }) },
        validate,
      ),
    ).toMatchObject({ error: { code: -32005 } });
  });
});

describe('toA2aTask', () => {
  const stored: StoredA2aTask = {
    id: 't1',
    connectionId: 'c1',
    messageId: 'm1',
    contextId: 'ctx',
    state: 'completed',
    requestMessage: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] },
    replyMessage: {
      kind: 'message',
      role: 'agent',
      messageId: 'r1',
      parts: [{ kind: 'text', text: 'hello' }],
    },
    artifacts: [],
    push: null,
    pushedAt: null,
    updatedAt: new Date('2026-11-21T10:00:00.000Z'),
  };

  it('shows the last historyLength messages, the reply as status message', () => {
    expect(toA2aTask(stored).history?.map((m) => m.messageId)).toEqual(['m1', 'r1']);
    expect(toA2aTask(stored, 1).history?.map((m) => m.messageId)).toEqual(['r1']);
    expect(toA2aTask(stored, 0).history).toEqual([]);
    expect(toA2aTask(stored).status).toEqual({
      state: 'completed',
      timestamp: '2026-11-21T10:00:00.000Z',
      message: stored.replyMessage,
    });
    expect(toA2aTask({ ...stored, state: 'working', replyMessage: null }).status.message).toBeUndefined();
  });
});

describe('the adapter’s pure parts', () => {
  it('gives the reply text, then an ACTION_SET as a data part', () => {
    const actionSet = { type: 'ACTION_SET', elements: [{ type: 'button', id: 'yes', label: 'Yes' }] };
    expect(replyParts({ text: 'Pick one', actionSet: actionSet as never })).toEqual([
      { kind: 'text', text: 'Pick one' },
      { kind: 'data', data: { actionSet }, metadata: { type: 'ACTION_SET' } },
    ]);
    expect(replyParts({ text: 'plain' })).toEqual([{ kind: 'text', text: 'plain' }]);
  });

  it('calls https push URLs, http ones only when the connection allows it, nothing else', () => {
    const strict = { settings: {} };
    const lax = { settings: { allowHttpPushUrls: true } };
    expect(pushUrlAllowed('https://client.example/hook', strict)).toBe(true);
    expect(pushUrlAllowed('http://127.0.0.1:9/hook', strict)).toBe(false);
    expect(pushUrlAllowed('http://127.0.0.1:9/hook', lax)).toBe(true);
    expect(pushUrlAllowed('file:///etc/passwd', lax)).toBe(false);
    expect(pushUrlAllowed('not a url', lax)).toBe(false);
  });
});
