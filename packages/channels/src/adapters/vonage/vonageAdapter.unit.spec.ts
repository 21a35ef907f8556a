import { SMS } from '@vonage/sms';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../../adapter.js';
import { testConnection } from '../../testing/standInServer.js';
import {
  messagesInbound,
  messagesStatus,
  signSmsApi,
  smsApiConcatParts,
  smsApiInbound,
  smsApiReceipt,
  vonageWebhookToken,
} from '../../testing/vonage/vonageWebhooks.js';
import { createVonageAdapter } from './vonageAdapter.js';
import { VONAGE_SIGNATURE_METHODS, type VonageSignatureMethod } from './vonageSettings.js';
import { smsApiSignature, verifyMessagesWebhook, verifySmsApiWebhook } from './vonageSignature.js';

const SECRET = 'vonage-signature-secret-0123456789';
const NUMBER = '447700900000';
const USER = '447700900001';
const NOW = new Date('2026-11-21T10:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
/** Tokens signed at the adapter's clock. */
const AT_NOW = { iat: NOW_S };
const WINDOW = { now: NOW, maxAgeSeconds: 300 };
const adapter = createVonageAdapter({ now: () => NOW });
const messagesConnection = {
  ...testConnection('sms', NUMBER, { signatureSecret: SECRET, applicationId: 'app', privateKey: 'k' }),
  provider: 'vonage',
};
const smsConnection = (method: VonageSignatureMethod) => ({
  ...testConnection('sms', NUMBER, { signatureSecret: SECRET, apiKey: 'abcd1234', apiSecret: 's' }),
  provider: 'vonage',
  settings: { vonageApi: 'sms', signatureMethod: method },
});

const jsonRequest = (body: object, token?: string): InboundRequest => {
  const raw = JSON.stringify(body);
  return {
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.parse(raw) as unknown,
    rawBody: Buffer.from(raw),
    url: 'https://parley.example/api/v1/channels/sms/vonage/webhook',
    query: {},
  };
};
const formRequest = (params: Record<string, string>): InboundRequest => {
  const raw = new URLSearchParams(params).toString();
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Object.fromEntries(new URLSearchParams(raw)),
    rawBody: Buffer.from(raw),
    url: 'https://parley.example/api/v1/channels/sms/vonage/webhook',
    query: {},
  };
};

// The SDK's names of the methods (@vonage/auth AlgorithmTypes), for the SDK as an oracle.
const SDK_ALGORITHM: Record<VonageSignatureMethod, string> = {
  md5hash: 'MD5HASH',
  md5: 'MD5HMAC',
  sha1: 'SHA1HMAC',
  sha256: 'SHA256HMAC',
  sha512: 'SHA512HMAC',
};
const sdk = new SMS({ apiKey: 'abcd1234', apiSecret: 'secret' });

describe('Vonage Messages API signed webhooks', () => {
  it('accepts the HS256 JWT signed with the signature secret over the exact body', () => {
    const body = messagesInbound(1, NUMBER, USER);
    const raw = JSON.stringify(body);
    expect(
      adapter.verifyRequest(jsonRequest(body, vonageWebhookToken(SECRET, raw, AT_NOW)), messagesConnection),
    ).toBe(true);
  });

  it('refuses another secret, another body, no token, another algorithm, a missing hash, an SMS API connection', () => {
    const body = messagesInbound(1, NUMBER, USER);
    const raw = JSON.stringify(body);
    const refused = (token: string | undefined, connection = messagesConnection, request = body) =>
      expect(adapter.verifyRequest(jsonRequest(request, token), connection)).toBe(false);
    refused(vonageWebhookToken('another-secret', raw, AT_NOW));
    refused(vonageWebhookToken(SECRET, raw, AT_NOW), messagesConnection, { ...body, text: 'forged' });
    refused(undefined);
    refused(vonageWebhookToken(SECRET, raw, AT_NOW, { alg: 'HS512', typ: 'JWT' }));
    refused(vonageWebhookToken(SECRET, raw, { ...AT_NOW, payload_hash: undefined }));
    refused(vonageWebhookToken(SECRET, raw, AT_NOW), smsConnection('md5hash'));
    refused(vonageWebhookToken(SECRET, raw, AT_NOW), { ...messagesConnection, credentials: {} });
    // An unsigned token ("alg": "none") is never a signature.
    const [header, claims] = vonageWebhookToken(SECRET, raw, AT_NOW).split('.');
    refused(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${claims}.`);
    refused(`${header}.${claims}.`);
  });

  it('never throws and accepts only a token over the exact body with the secret (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.uint8Array({ maxLength: 100 }), fc.string(), (header, body, secret) => {
        expect(verifyMessagesWebhook(header, Buffer.from(body), secret, WINDOW)).toBe(false);
        const raw = Buffer.from(body);
        const token = vonageWebhookToken(SECRET, raw.toString('latin1'), AT_NOW);
        expect(
          verifyMessagesWebhook(`Bearer ${token}`, Buffer.from(raw.toString('latin1')), SECRET, WINDOW),
        ).toBe(true);
        if (secret !== SECRET)
          expect(verifyMessagesWebhook(`Bearer ${token}`, raw, secret, WINDOW)).toBe(false);
      }),
    );
  });
});

describe('Vonage SMS API signatures (sig)', () => {
  it.each(VONAGE_SIGNATURE_METHODS)(
    '%s: accepted as Vonage signs, refused when anything changes',
    (method) => {
      const params = signSmsApi(smsApiInbound(1, NUMBER, USER), SECRET, method, NOW);
      const connection = smsConnection(method);
      expect(adapter.verifyRequest(formRequest(params), connection)).toBe(true);
      expect(adapter.verifyRequest(jsonRequest(params), connection)).toBe(true);
      expect(adapter.verifyRequest(formRequest({ ...params, text: 'forged' }), connection)).toBe(false);
      expect(adapter.verifyRequest(formRequest({ ...params, extra: 'x' }), connection)).toBe(false);
      const { sig: _sig, ...unsigned } = params;
      expect(adapter.verifyRequest(formRequest(unsigned), connection)).toBe(false);
      const other = VONAGE_SIGNATURE_METHODS.find((m) => m !== method) ?? 'md5hash';
      expect(adapter.verifyRequest(formRequest(params), smsConnection(other))).toBe(false);
      expect(adapter.verifyRequest(formRequest(params), messagesConnection)).toBe(false);
    },
  );

  it('computes what the official SDK verifies, and refuses what it refuses (property)', () => {
    const params = fc.dictionary(
      fc
        .string({ minLength: 1, maxLength: 12 })
        .filter((k) => k !== 'sig' && k !== 'timestamp' && k !== '__proto__'),
      fc.string({ maxLength: 20 }),
      { maxKeys: 8 },
    );
    fc.assert(
      fc.property(
        params,
        fc.constantFrom(...VONAGE_SIGNATURE_METHODS),
        fc.string({ minLength: 1 }),
        (unstamped, method, secret) => {
          const p = { ...unstamped, timestamp: String(NOW_S) };
          const sig = smsApiSignature(p, secret, method);
          expect(sdk.verifySignature(sig, { ...p }, secret, SDK_ALGORITHM[method] as never)).toBe(true);
          expect(verifySmsApiWebhook({ ...p, sig }, secret, method, WINDOW)).toBe(true);
          expect(verifySmsApiWebhook({ ...p, sig: sig.toUpperCase() }, secret, method, WINDOW)).toBe(true);
          const tampered = { ...p, extra: 'x' };
          expect(verifySmsApiWebhook({ ...tampered, sig }, secret, method, WINDOW)).toBe(
            sdk.verifySignature(sig, tampered, secret, SDK_ALGORITHM[method] as never),
          );
        },
      ),
    );
  });
});

describe('Vonage signature windows (replays refused)', () => {
  const body = messagesInbound(1, NUMBER, USER);
  const raw = JSON.stringify(body);
  const messages = (claims: Record<string, unknown>, maxAgeSeconds?: number) =>
    createVonageAdapter({
      now: () => NOW,
      ...(maxAgeSeconds === undefined ? {} : { signatureMaxAgeSeconds: maxAgeSeconds }),
    }).verifyRequest(jsonRequest(body, vonageWebhookToken(SECRET, raw, claims)), messagesConnection);

  it('Messages API: iat exactly 300 s either way accepted, 301 s refused; no iat refused', () => {
    expect(messages({ iat: NOW_S - 300 })).toBe(true);
    expect(messages({ iat: NOW_S + 300 })).toBe(true);
    expect(messages({ iat: NOW_S - 301 })).toBe(false);
    expect(messages({ iat: NOW_S + 301 })).toBe(false);
    expect(messages({ iat: undefined })).toBe(false);
    expect(messages({ iat: String(NOW_S) })).toBe(false);
  });

  it('Messages API: exp, when present, must not be past', () => {
    // jsonwebtoken (under @vonage/jwt) checks exp against the wall clock too: the adapter's clock is that here.
    const wall = new Date(Math.floor(Date.now() / 1000) * 1000);
    const wallS = wall.getTime() / 1000;
    const at = (claims: Record<string, unknown>) =>
      createVonageAdapter({ now: () => wall }).verifyRequest(
        jsonRequest(body, vonageWebhookToken(SECRET, raw, claims)),
        messagesConnection,
      );
    expect(at({ iat: wallS - 10, exp: wallS + 60 })).toBe(true);
    expect(at({ iat: wallS - 10, exp: wallS - 1 })).toBe(false);
    expect(at({ iat: wallS - 10, exp: 'later' })).toBe(false);
  });

  it('the window is configurable', () => {
    expect(messages({ iat: NOW_S - 60 }, 60)).toBe(true);
    expect(messages({ iat: NOW_S - 61 }, 60)).toBe(false);
    expect(messages({ iat: NOW_S - 3000 }, 3600)).toBe(true);
  });

  it('SMS API: the signed timestamp exactly 300 s either way accepted, 301 s refused; none refused', () => {
    const connection = smsConnection('md5hash');
    const signedAt = (offsetSeconds: number) =>
      adapter.verifyRequest(
        formRequest(
          signSmsApi(
            smsApiInbound(1, NUMBER, USER),
            SECRET,
            'md5hash',
            new Date(NOW.getTime() + offsetSeconds * 1000),
          ),
        ),
        connection,
      );
    expect(signedAt(-300)).toBe(true);
    expect(signedAt(300)).toBe(true);
    expect(signedAt(-301)).toBe(false);
    expect(signedAt(301)).toBe(false);
    // Signed without a timestamp (a valid sig over the other parameters): refused.
    const {
      timestamp: _t,
      sig: _s,
      ...rest
    } = signSmsApi(smsApiInbound(1, NUMBER, USER), SECRET, 'md5hash', NOW);
    const sig = smsApiSignature(rest, SECRET, 'md5hash');
    expect(adapter.verifyRequest(formRequest({ ...rest, sig }), connection)).toBe(false);
    const odd = { ...rest, timestamp: `${NOW_S}.5` };
    expect(
      adapter.verifyRequest(
        formRequest({ ...odd, sig: smsApiSignature(odd, SECRET, 'md5hash') }),
        connection,
      ),
    ).toBe(false);
  });
});

describe('Vonage webhook bodies', () => {
  it('reads a Messages API inbound SMS: session per sender, the message uuid, its time', () => {
    const body = messagesInbound(7, NUMBER, USER);
    expect(adapter.connectionIdentifier(jsonRequest(body))).toBe(NUMBER);
    expect(adapter.parseIncoming(jsonRequest(body), messagesConnection)).toEqual([
      {
        externalMessageId: body.message_uuid,
        externalSessionKey: USER,
        text: 'Hello from Vonage 7',
        metadata: {
          provider: 'vonage',
          api: 'messages',
          from: USER,
          to: NUMBER,
          messageUuid: body.message_uuid,
        },
        timestamp: '2025-02-03T12:14:25.000Z',
        channelUserId: USER,
      },
    ]);
    expect(adapter.parseReceipts(jsonRequest(body), messagesConnection)).toEqual([]);
  });

  it('ignores other channels, non-text messages, other numbers and the other API’s shape', () => {
    const body = messagesInbound(1, NUMBER, USER);
    for (const ignored of [
      { ...body, channel: 'whatsapp' },
      { ...body, message_type: 'image', text: undefined },
      { ...body, text: '  ' },
      { ...body, to: '447700900999' },
    ]) {
      expect(adapter.parseIncoming(jsonRequest(ignored), messagesConnection)).toEqual([]);
    }
    expect(adapter.parseIncoming(jsonRequest(body), smsConnection('md5hash'))).toEqual([]);
  });

  it('reads a Messages API status callback as a receipt (from our number)', () => {
    const uuid = 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab';
    const delivered = messagesStatus(uuid, 'delivered', USER, NUMBER);
    expect(adapter.connectionIdentifier(jsonRequest(delivered))).toBe(NUMBER);
    expect(adapter.parseIncoming(jsonRequest(delivered), messagesConnection)).toEqual([]);
    expect(adapter.parseReceipts(jsonRequest(delivered), messagesConnection)).toEqual([
      {
        externalMessageId: uuid,
        status: 'delivered',
        outcome: 'delivered',
        timestamp: '2025-02-03T12:15:02.010Z',
      },
    ]);
    const rejected = messagesStatus(uuid, 'rejected', USER, NUMBER);
    expect(adapter.parseReceipts(jsonRequest(rejected), messagesConnection)).toMatchObject([
      { status: 'rejected', outcome: 'failed', errorCode: '1000' },
    ]);
    expect(
      adapter.parseReceipts(jsonRequest(messagesStatus(uuid, 'submitted', USER, NUMBER)), messagesConnection),
    ).toMatchObject([{ outcome: 'pending' }]);
  });

  it('reads an SMS API inbound message and delivery receipt', () => {
    const connection = smsConnection('sha256');
    const inbound = smsApiInbound(3, NUMBER, USER);
    expect(adapter.connectionIdentifier(formRequest(inbound))).toBe(NUMBER);
    expect(adapter.parseIncoming(formRequest(inbound), connection)).toEqual([
      {
        externalMessageId: inbound.messageId,
        externalSessionKey: USER,
        text: 'Hello by the SMS API 3',
        metadata: { provider: 'vonage', api: 'sms', from: USER, to: NUMBER, messageId: inbound.messageId },
        timestamp: '2020-01-01T12:00:00.000Z',
        channelUserId: USER,
      },
    ]);
    expect(adapter.parseIncoming(formRequest({ ...inbound, type: 'binary' }), connection)).toEqual([]);
    const receipt = smsApiReceipt('0B00000012345678', 'expired', NUMBER, USER);
    expect(adapter.connectionIdentifier(formRequest(receipt))).toBe(NUMBER);
    expect(adapter.parseIncoming(formRequest(receipt), connection)).toEqual([]);
    expect(adapter.parseReceipts(formRequest(receipt), connection)).toEqual([
      {
        externalMessageId: '0B00000012345678',
        status: 'expired',
        outcome: 'failed',
        errorCode: '6',
        timestamp: '2020-01-01T14:00:00.000Z',
      },
    ]);
  });

  it('reads a part of a concatenated SMS API message as a part (blank text kept); other concat fields: whole', () => {
    const connection = smsConnection('md5hash');
    const [first, second] = smsApiConcatParts(['Part one ', '   '], '7', NUMBER, USER);
    expect(adapter.parseIncoming(formRequest(first ?? {}), connection)).toMatchObject([
      { externalMessageId: first?.messageId, text: 'Part one ', part: { group: '7', index: 1, total: 2 } },
    ]);
    expect(adapter.parseIncoming(formRequest(second ?? {}), connection)).toMatchObject([
      { text: '   ', part: { group: '7', index: 2, total: 2 } },
    ]);
    const odds: Record<string, string>[] = [
      { 'concat-part': '3' },
      { 'concat-part': '0' },
      { 'concat-total': '1' },
      { 'concat-total': 'x' },
      { 'concat-ref': '' },
      { concat: 'false' },
    ];
    for (const odd of odds) {
      const [message] = adapter.parseIncoming(formRequest({ ...first, ...odd }), connection);
      expect(message?.part).toBeUndefined();
      expect(message?.text).toBe('Part one ');
    }
  });

  it('never throws on any body (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const request = jsonRequest(body as object);
        for (const connection of [messagesConnection, smsConnection('md5hash')]) {
          expect(Array.isArray(adapter.parseIncoming(request, connection))).toBe(true);
          expect(Array.isArray(adapter.parseReceipts(request, connection))).toBe(true);
          expect(adapter.verifyRequest(request, connection)).toBe(false);
        }
        adapter.connectionIdentifier(request);
      }),
    );
  });
});
