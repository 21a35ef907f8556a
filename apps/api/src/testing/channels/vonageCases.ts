import { generateKeyPairSync, verify } from 'node:crypto';
import {
  type RecordedRequest,
  type StandInReply,
  signSmsApi,
  smsApiInbound,
  vonageMessagesInbound,
  vonageWebhookToken,
} from '@parley/channels/testing';
import { expect } from 'vitest';
import type { AdapterCase } from './adapterCases.js';

/**
 * Test-only: SMS through Vonage end to end, once per Vonage API (the connection's `vonageApi`):
 * the webhook on the provider route signed as Vonage signs it, the reply through the official SDK
 * to a stand-in answering as Vonage's API does.
 */
export const VONAGE_PATH = '/api/v1/channels/sms/vonage/webhook';
export const VONAGE_SECRET = 'vonage-signature-secret-e2e-0123456789';
const USER = '447700900001';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
export const VONAGE_APP_ID = 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab';
export const VONAGE_PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/** Whether a Messages API call carries the application's RS256 JWT. */
export function signedByApplication(call: RecordedRequest): boolean {
  const token = /^Bearer (.+)$/.exec(call.headers.authorization ?? '')?.[1] ?? '';
  const [header = '', claims = '', signature = ''] = token.split('.');
  if (
    !verify('RSA-SHA256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'))
  )
    return false;
  return JSON.parse(Buffer.from(claims, 'base64url').toString()).application_id === VONAGE_APP_ID;
}

let sent = 0;
/** The Messages API's answer to a send: 202 and the message's uuid. */
export const messagesApiAnswer = (): StandInReply => ({
  status: 202,
  body: { message_uuid: `bbbbbbbb-cccc-4ddd-8eee-${String(++sent).padStart(12, '0')}` },
});

export const vonageMessagesCase = (number: string): AdapterCase => ({
  channelType: 'sms',
  provider: 'vonage',
  label: 'sms/vonage (Messages API)',
  identifier: number,
  credentials: {
    signatureSecret: VONAGE_SECRET,
    applicationId: VONAGE_APP_ID,
    privateKey: VONAGE_PRIVATE_KEY,
  },
  settings: { vonageApi: 'messages' },
  platform: messagesApiAnswer,
  webhook(n, signed) {
    const payload = JSON.stringify(vonageMessagesInbound(n, number, USER));
    const token = vonageWebhookToken(signed ? VONAGE_SECRET : 'forged-secret', payload);
    return {
      url: VONAGE_PATH,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      payload,
    };
  },
  replyCall: (requests) => requests.find((r) => r.path === '/v1/messages'),
  expectReply(call) {
    expect(signedByApplication(call)).toBe(true);
    expect(call.body).toMatchObject({
      channel: 'sms',
      message_type: 'text',
      to: USER,
      from: number,
      text: expect.any(String),
      client_ref: expect.any(String),
    });
  },
  sessionKey: () => USER,
});

export const vonageSmsApiCase = (number: string): AdapterCase => ({
  channelType: 'sms',
  provider: 'vonage',
  label: 'sms/vonage (SMS API, sha256 HMAC)',
  identifier: number,
  credentials: { signatureSecret: VONAGE_SECRET, apiKey: 'abcd1234', apiSecret: 'abcdef0123456789' },
  settings: { vonageApi: 'sms', signatureMethod: 'sha256' },
  platform: (request) => ({
    status: 200,
    body: {
      'message-count': '1',
      messages: [
        {
          to: (request.body as { to?: string }).to,
          'message-id': `0C0000001234${String(++sent).padStart(4, '0')}`,
          status: '0',
          'remaining-balance': '3.14159265',
          'message-price': '0.03330000',
          network: '23410',
        },
      ],
    },
  }),
  webhook(n, signed) {
    const params = signSmsApi(
      smsApiInbound(n, number, USER),
      signed ? VONAGE_SECRET : 'forged-secret',
      'sha256',
    );
    return {
      url: VONAGE_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    };
  },
  replyCall: (requests) => requests.find((r) => r.path === '/sms/json'),
  expectReply(call) {
    expect(call.headers.authorization).toBe(
      `Basic ${Buffer.from('abcd1234:abcdef0123456789').toString('base64')}`,
    );
    expect(call.body).toMatchObject({ to: USER, from: number, text: expect.any(String) });
  },
  sessionKey: () => USER,
});
