import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { VonageSignatureMethod } from '../../adapters/vonage/vonageSettings.js';
import { smsApiSignature } from '../../adapters/vonage/vonageSignature.js';

/**
 * Test-only: Vonage's webhooks as Vonage sends them (shapes from its API specifications and SDK
 * tests), signed as Vonage signs them: the Messages API's HS256 JWT over the body's SHA-256, or
 * the SMS API's `sig`.
 */

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A Vonage signed-webhook token: HS256 with the signature secret, `payload_hash` of the body. */
export function vonageWebhookToken(
  secret: string,
  body: string,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' },
): string {
  const payload = {
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    iss: 'Vonage',
    payload_hash: createHash('sha256').update(body).digest('hex'),
    api_key: 'abcd1234',
    application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
    ...claims,
  };
  const signingInput = `${b64url(header)}.${b64url(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

/** A Messages API inbound SMS (JSON). */
export const messagesInbound = (n: number, to: string, from: string) => ({
  channel: 'sms',
  message_uuid: `aaaaaaaa-bbbb-4ccc-8ddd-${String(n).padStart(12, '0')}`,
  to,
  from,
  timestamp: '2025-02-03T12:14:25Z',
  text: `Hello from Vonage ${n}`,
  message_type: 'text',
  sms: { num_messages: '1', keyword: 'HELLO' },
  usage: { price: '0.0333', currency: 'EUR' },
});

/** A Messages API status callback of a sent SMS. */
export const messagesStatus = (messageUuid: string, status: string, to: string, from: string) => ({
  message_uuid: messageUuid,
  to,
  from,
  timestamp: '2025-02-03T12:15:02.010Z',
  status,
  channel: 'sms',
  usage: { currency: 'EUR', price: '0.0333' },
  destination: { network_code: '23410' },
  sms: { count_total: '1' },
  ...(status === 'rejected'
    ? {
        error: {
          type: 'https://developer.nexmo.com/api-errors/messages-olympus#1000',
          title: 1000,
          detail: 'Throttled - You have exceeded the submission capacity allowed on this account.',
          instance: 'bf0ca0bf927b3b52e3cb03217e1a1ddf',
        },
      }
    : {}),
});

/** The SMS API's extra parameters of a signed webhook, then its `sig`. */
export function signSmsApi(
  params: Record<string, string>,
  secret: string,
  method: VonageSignatureMethod,
  at: Date = new Date(),
): Record<string, string> {
  const signed = { ...params, timestamp: String(Math.floor(at.getTime() / 1000)), nonce: randomUUID() };
  const sig = smsApiSignature(signed, secret, method);
  // Vonage sends md5hash lower-case and the HMACs upper-case.
  return { ...signed, sig: method === 'md5hash' ? sig : sig.toUpperCase() };
}

/** An SMS API inbound message (form or JSON parameters, all strings), unsigned. */
export const smsApiInbound = (n: number, to: string, msisdn: string): Record<string, string> => ({
  msisdn,
  to,
  messageId: `0A00000012345${String(n).padStart(3, '0')}`,
  text: `Hello by the SMS API ${n}`,
  type: 'text',
  keyword: 'HELLO',
  'api-key': 'abcd1234',
  'message-timestamp': '2020-01-01 12:00:00',
});

/** An SMS API delivery receipt of a sent message, unsigned. */
export const smsApiReceipt = (
  messageId: string,
  status: string,
  ourNumber: string,
  recipient: string,
): Record<string, string> => ({
  msisdn: recipient,
  to: ourNumber,
  'network-code': '23410',
  messageId,
  price: '0.03330000',
  status,
  scts: '2001011400',
  'err-code': status === 'delivered' ? '0' : '6',
  'api-key': 'abcd1234',
  'message-timestamp': '2020-01-01 14:00:00',
  'client-ref': 'msg_ref',
});

/**
 * The parts of a long SMS as the SMS API delivers them (Vonage "Concatenated inbound messages":
 * one webhook per part, `concat` "true", `concat-ref` shared, `concat-total`, 1-based
 * `concat-part`, each with its own `messageId`), unsigned; `texts` are the parts in order.
 */
export const smsApiConcatParts = (
  texts: readonly string[],
  ref: string,
  to: string,
  msisdn: string,
  idPrefix = '0C0000001234',
): Record<string, string>[] =>
  texts.map((text, i) => ({
    msisdn,
    to,
    messageId: `${idPrefix}${ref.padStart(2, '0')}${String(i + 1).padStart(2, '0')}`,
    text,
    type: 'text',
    keyword: (texts[0] ?? '').split(' ')[0]?.toUpperCase() ?? '',
    'api-key': 'abcd1234',
    'message-timestamp': '2020-01-01 12:00:00',
    concat: 'true',
    'concat-ref': ref,
    'concat-total': String(texts.length),
    'concat-part': String(i + 1),
  }));
