import { actionSetSchema } from '@parley/events';
import { computeRequestSignature } from '@parley/telephony';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { outgoingReplyArbitrary } from '../../testing/arbitraries.js';
import { testConnection } from '../../testing/standInServer.js';
import { createSmsAdapter, verifySmsSignature } from './smsAdapter.js';
import { SMS_LIMITS, toSmsOutput } from './smsTransform.js';

const AUTH_TOKEN = '12345abcde12345abcde12345abcde12';
const ACCOUNT_SID = 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX';
const NUMBER = '+15017122661';
const connection = testConnection('sms', NUMBER, { accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN });
const NOW = new Date('2026-11-21T10:00:00.000Z');
const adapter = createSmsAdapter({ now: () => NOW });
const URL_ = `https://parley.example/api/v1/channels/sms/webhook/${encodeURIComponent(NUMBER)}`;

// The provider's incoming message webhook parameters (form-encoded).
const inbound: Record<string, string> = {
  ToCountry: 'US',
  SmsMessageSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
  NumMedia: '0',
  SmsSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
  SmsStatus: 'received',
  Body: 'Where is my order?',
  To: NUMBER,
  NumSegments: '1',
  MessageSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
  AccountSid: ACCOUNT_SID,
  From: '+15558675310',
  ApiVersion: '2010-04-01',
};

const request = (params: Record<string, string>, token = AUTH_TOKEN, url = URL_): InboundRequest => {
  const rawBody = Buffer.from(new URLSearchParams(params).toString());
  return {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': computeRequestSignature(token, url, Object.entries(params)),
    },
    body: params,
    rawBody,
    url,
    query: {},
  };
};

describe('SMS verifyRequest', () => {
  it('accepts a request signed over the full URL with the auth token', () => {
    expect(adapter.verifyRequest(request(inbound), connection)).toBe(true);
  });

  it('refuses a wrong token, another URL, a tampered body, a missing header or no token', () => {
    expect(adapter.verifyRequest(request(inbound, 'other-token'), connection)).toBe(false);
    expect(adapter.verifyRequest({ ...request(inbound), url: `${URL_}?x=1` }, connection)).toBe(false);
    const tampered = {
      ...request(inbound),
      rawBody: Buffer.from(new URLSearchParams({ ...inbound, Body: 'x' }).toString()),
    };
    expect(adapter.verifyRequest(tampered, connection)).toBe(false);
    expect(adapter.verifyRequest({ ...request(inbound), headers: {} }, connection)).toBe(false);
    expect(adapter.verifyRequest(request(inbound), { ...connection, credentials: {} })).toBe(false);
  });

  it('never throws and accepts only the exact signature (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.option(fc.string({ maxLength: 200 })),
        fc.string(),
        fc.string({ maxLength: 40 }),
        (body, header, url, token) => {
          const req: InboundRequest = {
            headers: header === null ? {} : { 'x-twilio-signature': header },
            body: undefined,
            rawBody: Buffer.from(body),
            url,
            query: {},
          };
          const params = [...new URLSearchParams(Buffer.from(body).toString('utf8')).entries()];
          const expected =
            token !== '' && header !== null && header === computeRequestSignature(token, url, params);
          expect(verifySmsSignature(req, token)).toBe(expected);
        },
      ),
    );
  });
});

describe('SMS parseIncoming', () => {
  it('normalizes an inbound SMS (spec 001 §2.1)', () => {
    expect(adapter.parseIncoming(request(inbound), connection)).toEqual([
      {
        externalMessageId: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
        externalSessionKey: '+15558675310',
        text: 'Where is my order?',
        metadata: {
          from: '+15558675310',
          to: NUMBER,
          messageSid: 'SM1f0e8ae6ade43cb3c0ce4525424e404f',
          accountSid: ACCOUNT_SID,
        },
        timestamp: '2026-11-21T10:00:00.000Z',
        channelUserId: '+15558675310',
      },
    ]);
  });

  it('ignores status callbacks, media without text, other numbers and other accounts', () => {
    const status = {
      MessageSid: 'SMout',
      MessageStatus: 'delivered',
      SmsStatus: 'delivered',
      To: '+15558675310',
      From: NUMBER,
      AccountSid: ACCOUNT_SID,
    };
    expect(
      adapter.parseIncoming(request(status), { ...connection, externalIdentifier: '+15558675310' }),
    ).toEqual([]);
    expect(adapter.parseIncoming(request({ ...inbound, Body: '', NumMedia: '1' }), connection)).toEqual([]);
    expect(adapter.parseIncoming(request({ ...inbound, To: '+15550000000' }), connection)).toEqual([]);
    expect(adapter.parseIncoming(request({ ...inbound, AccountSid: 'ACother' }), connection)).toEqual([]);
  });

  it('never throws on arbitrary bodies (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (body) => {
        const req = { ...request(inbound), body: undefined, rawBody: Buffer.from(body) };
        expect(Array.isArray(adapter.parseIncoming(req, connection))).toBe(true);
      }),
    );
  });

  it('reads the connection identifier (To) from the body', () => {
    expect(adapter.connectionIdentifier(request(inbound))).toBe(NUMBER);
  });
});

describe('SMS transformOutput', () => {
  it('renders an ACTION_SET as numbered options after the text', () => {
    expect(
      toSmsOutput({
        text: 'Your order shipped.',
        actionSet: {
          prompt: 'Anything else?',
          elements: [
            { type: 'button', id: 'track', label: 'Track it' },
            {
              type: 'select',
              id: 'topic',
              label: 'Other topics',
              options: [
                { label: 'Returns', value: 'returns' },
                { label: 'Billing', value: 'billing' },
              ],
            },
          ],
        },
      }),
    ).toEqual({
      bodies: [
        'Your order shipped.\n\nAnything else?\n1. Track it\nOther topics:\n2. Returns\n3. Billing\nReply with the number of your choice.',
      ],
    });
  });

  it('splits long text at 1600 characters and sends nothing for a blank reply', () => {
    expect(toSmsOutput({ text: 'a'.repeat(4000) }).bodies.map((b) => b.length)).toEqual([1600, 1600, 800]);
    expect(toSmsOutput({ text: '  ' }).bodies).toEqual([]);
  });

  it('never exceeds 1600 characters and numbers every option (property)', () => {
    const reply = outgoingReplyArbitrary({ maxTextLength: 5000 });
    fc.assert(
      fc.property(reply, (r) => {
        if (r.actionSet !== undefined) expect(actionSetSchema.safeParse(r.actionSet).success).toBe(true);
        const { bodies } = toSmsOutput(r);
        for (const body of bodies) {
          expect(Array.from(body).length).toBeLessThanOrEqual(SMS_LIMITS.body);
          expect(body.length).toBeGreaterThan(0);
        }
        const options = (r.actionSet?.elements ?? []).reduce(
          (n, e) => n + (e.type === 'button' ? 1 : e.type === 'select' ? e.options.length : 0),
          0,
        );
        // The last option's number starts a line (the first line when there is no text or prompt)
        // and stays with its label: bodies are cut at line breaks first.
        if (options > 0) expect(`\n${bodies.join('\n')}`).toContain(`\n${options}. `);
      }),
    );
  });
});
