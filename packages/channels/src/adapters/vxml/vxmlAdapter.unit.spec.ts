import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest, SyncOutcome } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { xmlWellFormedError } from '../../testing/vxml/xmlWellFormed.js';
import type { ResolvedConnection } from '../../types.js';
import { createVxmlAdapter, nextUrlOf, verifyVxmlToken } from './vxmlAdapter.js';
import { optionLabels, speakable, VXML_LIMITS, xmlEscape } from './vxmlDocument.js';
import { parseVxmlRequest } from './vxmlPayload.js';

const TOKEN = 'ivr-token-0123456789';
const NOW = new Date('2026-11-21T10:00:00.000Z');
const HOOK = 'https://parley.example/api/v1/channels/vxml/hooks/ivr-main';
const adapter = createVxmlAdapter({ now: () => NOW });
const connection = testConnection('vxml', 'ivr-main', { inboundToken: TOKEN });

const form = (
  fields: Record<string, string>,
  options: { headers?: Record<string, string>; query?: Record<string, string> } = {},
): InboundRequest => {
  const raw = new URLSearchParams(fields).toString();
  const query = options.query ?? {};
  const search = new URLSearchParams(query).toString();
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
    body: Object.fromEntries(new URLSearchParams(raw)),
    rawBody: Buffer.from(raw),
    url: search === '' ? HOOK : `${HOOK}?${search}`,
    query,
  };
};

const unescapeXml = (text: string) =>
  text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');

const prompts = (xml: string) =>
  [...xml.matchAll(/<prompt>([\s\S]*?)<\/prompt>/g)].map((m) => unescapeXml(m[1] ?? ''));

const render = (outcome: SyncOutcome, req: InboundRequest, conn: ResolvedConnection = connection) =>
  adapter.respond(outcome, { message: adapter.parseIncoming(req, conn)[0] ?? null, connection: conn, req });

describe('vxml: verification', () => {
  it('accepts the token as a bearer, as a Basic password and as the token query parameter', () => {
    const basic = `Basic ${Buffer.from(`ivr:${TOKEN}`).toString('base64')}`;
    expect(
      adapter.verifyRequest(form({}, { headers: { authorization: `Bearer ${TOKEN}` } }), connection),
    ).toBe(true);
    expect(adapter.verifyRequest(form({}, { headers: { authorization: basic } }), connection)).toBe(true);
    expect(adapter.verifyRequest(form({}, { query: { token: TOKEN } }), connection)).toBe(true);
  });

  it('refuses a missing, wrong or truncated token, and a connection without one', () => {
    expect(adapter.verifyRequest(form({}), connection)).toBe(false);
    expect(adapter.verifyRequest(form({}, { headers: { authorization: 'Bearer nope' } }), connection)).toBe(
      false,
    );
    expect(adapter.verifyRequest(form({}, { query: { token: TOKEN.slice(0, -1) } }), connection)).toBe(false);
    expect(
      adapter.verifyRequest(
        form({}, { headers: { authorization: `Basic ${Buffer.from(TOKEN).toString('base64')}` } }),
        connection,
      ),
    ).toBe(false);
    const empty = testConnection('vxml', 'ivr-main', { inboundToken: '' });
    expect(adapter.verifyRequest(form({}, { query: { token: '' } }), empty)).toBe(false);
  });

  it('never throws, and accepts only the exact token (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (authorization, query, token) => {
        const ok = verifyVxmlToken({ headers: { authorization }, query: { token: query } }, token);
        if (ok)
          expect(
            [query, authorization.replace(/^Bearer\s+/i, '').trim()].includes(token) ||
              authorization.startsWith('Basic'),
          ).toBe(true);
        if (token === '') expect(ok).toBe(false);
      }),
    );
  });
});

describe('vxml: parsing', () => {
  it('reads the form fields into one message keyed by session and turn', () => {
    const [message, ...rest] = parseVxmlRequest(
      form({
        session_id: 'call-1',
        utterance: ' check my balance ',
        turn: '3',
        caller: '+15550100',
        called: '+15550199',
      }),
      NOW,
    );
    expect(rest).toEqual([]);
    expect(message).toEqual({
      externalMessageId: 'call-1:3',
      externalSessionKey: 'call-1',
      text: 'check my balance',
      metadata: { sessionId: 'call-1', turn: 3, caller: '+15550100', called: '+15550199' },
      timestamp: NOW.toISOString(),
      channelUserId: '+15550100',
    });
  });

  it('prefers the IVR’s message id, and hashes the body without a turn (a resubmission dedupes)', () => {
    expect(
      parseVxmlRequest(form({ session_id: 's', utterance: 'hi', turn: '2', message_id: 'm-9' }), NOW)[0]
        ?.externalMessageId,
    ).toBe('m-9');
    const a = parseVxmlRequest(form({ session_id: 's', utterance: 'hi' }), NOW)[0]?.externalMessageId;
    const b = parseVxmlRequest(form({ session_id: 's', utterance: 'hi' }), NOW)[0]?.externalMessageId;
    const c = parseVxmlRequest(form({ session_id: 's', utterance: 'hello' }), NOW)[0]?.externalMessageId;
    expect(a).toMatch(/^s:body:[0-9a-f]{32}$/);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('gives no message without a session id or an utterance (call start)', () => {
    expect(parseVxmlRequest(form({ utterance: 'hi' }), NOW)).toEqual([]);
    expect(parseVxmlRequest(form({ session_id: 'call-1' }), NOW)).toEqual([]);
    expect(parseVxmlRequest(form({ session_id: 'call-1', utterance: '   ' }), NOW)).toEqual([]);
    expect(parseVxmlRequest({ body: 'not a form', rawBody: Buffer.from('x') }, NOW)).toEqual([]);
  });

  it('reads JSON bodies too, and never throws on arbitrary input (property)', () => {
    const raw = JSON.stringify({ session_id: 'j', utterance: 'json', turn: 1 });
    expect(
      parseVxmlRequest({ body: JSON.parse(raw), rawBody: Buffer.from(raw) }, NOW)[0]?.externalMessageId,
    ).toBe('j:1');
    fc.assert(
      fc.property(fc.anything(), fc.uint8Array({ maxLength: 200 }), (body, raw) => {
        const messages = parseVxmlRequest({ body, rawBody: Buffer.from(raw) }, NOW);
        expect(messages.length).toBeLessThanOrEqual(1);
        for (const m of messages) {
          expect(m.externalMessageId).not.toBe('');
          expect(m.text.trim()).not.toBe('');
        }
      }),
    );
  });
});

describe('vxml: documents', () => {
  const turnRequest = form(
    { session_id: 'call-1', utterance: 'hi', turn: '1', caller: '+15550100' },
    { query: { token: TOKEN } },
  );

  it('speaks the reply and collects the next utterance, submitted back to the same hook', () => {
    const res = render(
      { kind: 'reply', reply: { text: 'Your balance is **$12 & 5 cents** <today>.' }, sessionEnded: false },
      turnRequest,
    );
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/voicexml+xml; charset=utf-8');
    expect(xmlWellFormedError(res.body)).toBeNull();
    expect(res.body).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<vxml version="2.1" xmlns="http:\/\/www.w3.org\/2001\/vxml"/,
    );
    expect(prompts(res.body)).toEqual(['Your balance is $12 & 5 cents .']);
    expect(res.body).toContain(
      `<submit next="/api/v1/channels/vxml/hooks/ivr-main?token=${TOKEN}" method="post" namelist="session_id turn utterance caller"/>`,
    );
    expect(res.body).toContain('<var name="session_id" expr="&quot;call-1&quot;"/>');
    expect(res.body).toContain('<var name="turn" expr="&quot;2&quot;"/>');
    expect(res.body).toContain('<field name="utterance">');
    expect(res.body).toContain('<grammar src="builtin:grammar/dictation"/>');
    expect(res.body).not.toContain('<disconnect/>');
  });

  it('reads an ACTION_SET as spoken options with an inline grammar of their labels', () => {
    const res = render(
      {
        kind: 'reply',
        reply: {
          text: 'Which account?',
          actionSet: {
            prompt: 'Pick one.',
            elements: [
              { type: 'button', id: 'chk', label: 'Checking' },
              {
                type: 'select',
                id: 'other',
                label: 'Other',
                options: [
                  { label: 'Savings & loans', value: 's' },
                  { label: 'checking', value: 'c2' },
                ],
              },
              { type: 'text_input', id: 'acct', label: 'Or say the account number.' },
            ],
          },
        },
        sessionEnded: false,
      },
      turnRequest,
    );
    expect(xmlWellFormedError(res.body)).toBeNull();
    expect(prompts(res.body)).toEqual([
      'Which account?',
      'Pick one. Say Checking or Savings & loans. Or say the account number.',
    ]);
    expect(res.body).toContain(
      '<grammar mode="voice" version="1.0" root="options" xmlns="http://www.w3.org/2001/06/grammar"><rule id="options" scope="public"><one-of><item>Checking</item><item>Savings &amp; loans</item></one-of></rule></grammar>',
    );
  });

  it('ends the call when the session ended (disconnect, or exit when configured)', () => {
    const res = render(
      {
        kind: 'reply',
        reply: { text: 'Goodbye!', actionSet: { elements: [{ type: 'button', id: 'x', label: 'X' }] } },
        sessionEnded: true,
      },
      turnRequest,
    );
    expect(xmlWellFormedError(res.body)).toBeNull();
    expect(res.body).toContain('<form id="end"><block><prompt>Goodbye!</prompt><disconnect/></block></form>');
    expect(res.body).not.toContain('<field');
    const exiting = { ...connection, settings: { onEnd: 'exit' } };
    expect(
      render({ kind: 'reply', reply: { text: 'Bye' }, sessionEnded: true }, turnRequest, exiting).body,
    ).toContain('<exit/>');
  });

  it('greets at call start, re-prompts when nothing was recognized or the turn failed, and hangs up when off', () => {
    const start = render({ kind: 'no_message' }, form({ session_id: 'call-2' }));
    expect(prompts(start.body)).toEqual(['Hello, how can I help you?']);
    expect(start.body).toContain('<var name="turn" expr="&quot;1&quot;"/>');
    const greeted = { ...connection, settings: { greeting: 'Welcome to Acme <bank>.' } };
    expect(prompts(render({ kind: 'no_message' }, form({ session_id: 'call-2' }), greeted).body)).toEqual([
      'Welcome to Acme <bank>.',
    ]);
    expect(prompts(render({ kind: 'no_message' }, form({ session_id: 'call-2', turn: '4' })).body)).toEqual([
      'Sorry, I did not catch that.',
    ]);
    for (const error of ['turn_failed', 'turn_timeout', 'busy'] as const) {
      const res = render({ kind: 'error', error }, turnRequest);
      expect(res.status).toBe(200);
      expect(res.body).toContain('<field name="utterance">');
    }
    for (const outcome of [
      { kind: 'connection_inactive' },
      { kind: 'error', error: 'unavailable' },
    ] as const) {
      const res = render(outcome, turnRequest);
      expect(xmlWellFormedError(res.body)).toBeNull();
      expect(res.body).toContain('<disconnect/>');
    }
    expect(render({ kind: 'no_message' }, form({})).body).toContain('<disconnect/>');
  });

  it('is well-formed XML for arbitrary text, ACTION_SETs, session ids and URLs, within the limits (property)', () => {
    // Any code point in labels and prompt, counted in code points (past the schema's UTF-16 bounds).
    const replies = outgoingReplyArbitrary({
      maxTextLength: 6000,
      textUnit: 'binary',
      labelUnit: 'binary',
      promptUnit: 'binary',
      valid: false,
    });
    fc.assert(
      fc.property(
        replies,
        fc.boolean(),
        fc.string({ minLength: 1, unit: 'binary' }).filter((s) => s.trim() !== ''),
        fc.string({ unit: 'binary' }),
        (reply, ended, sessionId, tokenValue) => {
          const req = form(
            { session_id: sessionId, utterance: 'x', turn: '1', caller: sessionId },
            { query: { token: tokenValue } },
          );
          const outcome: SyncOutcome = { kind: 'reply', reply, sessionEnded: ended };
          const res = render(outcome, req);
          expect(xmlWellFormedError(res.body)).toBeNull();
          for (const p of prompts(res.body))
            expect(Array.from(p).length).toBeLessThanOrEqual(VXML_LIMITS.prompt);
          expect((res.body.match(/<item>/g) ?? []).length).toBeLessThanOrEqual(VXML_LIMITS.options);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('vxml: helpers', () => {
  it('makes markdown speakable', () => {
    expect(
      speakable(
        '# Title\n\n- **one** and _two_\n- see [the docs](https://x.example)\n\n```js\ncode()\n```\n| a | b |\n|---|---|',
      ),
    ).toBe('Title\none and two\nsee the docs\ncode()\na b');
  });

  it('escapes markup and drops characters XML forbids', () => {
    expect(xmlEscape(`a<b>&"c'\u0001\uFFFF\uD800`)).toBe('a&lt;b&gt;&amp;&quot;c&apos;');
  });

  it('lists each option label once, at most the limit', () => {
    const labels = optionLabels({
      elements: Array.from({ length: 15 }, (_, i) => ({
        type: 'button' as const,
        id: `b${i}`,
        label: i === 1 ? 'B0' : `b${i}`,
      })),
    });
    expect(labels).toHaveLength(VXML_LIMITS.options);
    expect(labels.slice(0, 2)).toEqual(['b0', 'b2']);
  });

  it('submits to the hook’s path and query, relative to the document', () => {
    expect(nextUrlOf('https://h.example/base/api/v1/channels/vxml/hooks/s?token=a%20b')).toBe(
      '/base/api/v1/channels/vxml/hooks/s?token=a%20b',
    );
  });
});
