import { isValidPart } from '../../inbound/parts/joinParts.js';
import type { DeliveryOutcome, DeliveryReceipt, MessagePart, NormalizedMessage } from '../../types.js';
import { isRecord, str } from '../shared.js';
import type { VonageApi } from './vonageSettings.js';

/**
 * Vonage's webhook bodies, both APIs (shapes from Vonage's API specifications and SDKs):
 * - Messages API, JSON. Inbound: `message_uuid`, `to`, `from`, `timestamp` (ISO 8601), `channel`,
 *   `message_type`, `text`, `sms: { num_messages, keyword }`. Status: `message_uuid`, `to`, `from`,
 *   `timestamp`, `status` (submitted, delivered, rejected, undeliverable, read), `channel`,
 *   `error: { type, title, detail }`, `client_ref`.
 * - SMS API, form or JSON, every value a string. Inbound: `msisdn`, `to`, `messageId`, `text`,
 *   `type` (text, unicode, binary), `keyword`, `message-timestamp` (`YYYY-MM-DD HH:MM:SS`, UTC),
 *   `concat`, `concat-ref`, `concat-part`, `concat-total` (a part of a long message), and when
 *   signed `timestamp`, `nonce`, `sig`. Delivery receipt: `msisdn` (the
 *   recipient), `to` (our sender), `messageId`, `status` (delivered, expired, failed, rejected,
 *   accepted, buffered, unknown), `err-code`, `network-code`, `scts`, `message-timestamp`.
 * Vonage writes numbers without the `+`.
 */

/** An SMS API body as its flat parameters (strings; numbers and booleans as their text). */
export function smsApiParams(body: unknown): Record<string, string> {
  const params: Record<string, string> = Object.create(null);
  if (!isRecord(body)) return params;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === 'string') params[name] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') params[name] = String(value);
  }
  return params;
}

const digits = (number: string | undefined): string | undefined => number?.replace(/^\+/, '');

/** Which API a body comes from, by its id field: null for neither. */
export function apiOfBody(body: unknown): VonageApi | null {
  if (!isRecord(body)) return null;
  if (typeof body.message_uuid === 'string') return 'messages';
  if (typeof body.messageId === 'string') return 'sms';
  return null;
}

/**
 * The connection identifier (the Vonage number) a webhook is for: the recipient of an inbound
 * message, the sender of a status callback or delivery receipt.
 */
export function vonageNumberOf(body: unknown): string | null {
  const api = apiOfBody(body);
  if (api === null || !isRecord(body)) return null;
  const isReport = typeof body.status === 'string';
  const number = api === 'messages' && isReport ? str(body.from) : str(body.to);
  return digits(number) || null;
}

/** `2020-01-01 12:00:00` (UTC) or ISO 8601 to ISO 8601; the fallback when neither parses. */
function isoTime(value: string | undefined, fallback: Date): string {
  if (value === undefined) return fallback.toISOString();
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? fallback.toISOString() : new Date(ms).toISOString();
}

export interface VonageParseOptions {
  /** Only messages to (reports from) this number: the connection identifier, without `+`. */
  number: string;
  now: Date;
}

/** A Messages API inbound SMS text; status callbacks, other channels and non-text messages: none. */
function messagesInbound(body: Record<string, unknown>, options: VonageParseOptions): NormalizedMessage[] {
  const id = str(body.message_uuid);
  const from = digits(str(body.from));
  const text = str(body.text);
  if (id === undefined || from === undefined || from === '' || typeof body.status === 'string') return [];
  if (body.channel !== 'sms' || body.message_type !== 'text' || text === undefined || text.trim() === '')
    return [];
  if (digits(str(body.to)) !== options.number) return [];
  const sms = isRecord(body.sms) ? body.sms : {};
  const numMessages = Number(str(sms.num_messages) ?? Number.NaN);
  return [
    {
      externalMessageId: id,
      externalSessionKey: from,
      text,
      metadata: {
        provider: 'vonage',
        api: 'messages',
        from,
        to: options.number,
        messageUuid: id,
        ...(Number.isInteger(numMessages) && numMessages > 1 ? { numMessages } : {}),
      },
      timestamp: isoTime(str(body.timestamp), options.now),
      channelUserId: from,
    },
  ];
}

/** An SMS API inbound text (or unicode) message; binary messages and receipts: none. */
function smsApiInbound(params: Record<string, string>, options: VonageParseOptions): NormalizedMessage[] {
  const { messageId, msisdn, text } = params;
  if (messageId === undefined || msisdn === undefined || msisdn === '' || params.status !== undefined)
    return [];
  const part = concatPart(params);
  // A part may be blank (a long message split inside a run of spaces); a whole message may not.
  if (params.type === 'binary' || text === undefined || (part === undefined && text.trim() === '')) return [];
  if (digits(params.to) !== options.number) return [];
  const from = digits(msisdn) ?? msisdn;
  return [
    {
      externalMessageId: messageId,
      externalSessionKey: from,
      text,
      metadata: { provider: 'vonage', api: 'sms', from, to: options.number, messageId },
      timestamp: isoTime(params['message-timestamp'], options.now),
      channelUserId: from,
      ...(part === undefined ? {} : { part }),
    },
  ];
}

const PART_NUMBER = /^[1-9]\d{0,2}$/;

/**
 * A part of a concatenated SMS (`concat` "true", `concat-ref`, `concat-part`, `concat-total`;
 * Vonage "Concatenated inbound messages"): joined by the pipeline (inbound/parts). Fields that do
 * not describe a part (missing, not numbers, part beyond total): the message stands alone.
 */
function concatPart(params: Record<string, string>): MessagePart | undefined {
  if (params.concat !== 'true') return undefined;
  const ref = params['concat-ref'];
  const index = params['concat-part'];
  const total = params['concat-total'];
  if (ref === undefined || ref === '' || ref.length > 64) return undefined;
  if (index === undefined || total === undefined || !PART_NUMBER.test(index) || !PART_NUMBER.test(total))
    return undefined;
  const part = { group: ref, index: Number(index), total: Number(total) };
  return isValidPart(part) ? part : undefined;
}

/** Inbound messages of a verified webhook of the connection's API. */
export function parseVonageInbound(
  api: VonageApi,
  body: unknown,
  options: VonageParseOptions,
): NormalizedMessage[] {
  if (apiOfBody(body) !== api || !isRecord(body)) return [];
  return api === 'messages' ? messagesInbound(body, options) : smsApiInbound(smsApiParams(body), options);
}

const OUTCOMES: Readonly<Record<VonageApi, Readonly<Record<string, DeliveryOutcome>>>> = {
  messages: {
    submitted: 'pending',
    delivered: 'delivered',
    read: 'read',
    rejected: 'failed',
    undeliverable: 'failed',
  },
  sms: {
    accepted: 'pending',
    buffered: 'pending',
    delivered: 'delivered',
    expired: 'failed',
    failed: 'failed',
    rejected: 'failed',
    unknown: 'unknown',
  },
};

/** The status callback (Messages API) or delivery receipt (SMS API) of a verified webhook. */
export function parseVonageReceipts(
  api: VonageApi,
  body: unknown,
  options: VonageParseOptions,
): DeliveryReceipt[] {
  if (apiOfBody(body) !== api || !isRecord(body) || vonageNumberOf(body) !== options.number) return [];
  const params = api === 'sms' ? smsApiParams(body) : undefined;
  const id = api === 'messages' ? str(body.message_uuid) : params?.messageId;
  const status = api === 'messages' ? str(body.status) : params?.status;
  if (id === undefined || status === undefined || status === '') return [];
  const error = isRecord(body.error) ? body.error : {};
  const rawCode =
    api === 'messages'
      ? (str(error.title) ?? (typeof error.title === 'number' ? String(error.title) : undefined))
      : params?.['err-code'];
  const errorCode =
    rawCode === undefined || rawCode === '' || rawCode === '0' ? undefined : rawCode.slice(0, 64);
  const at = api === 'messages' ? str(body.timestamp) : params?.['message-timestamp'];
  return [
    {
      externalMessageId: id,
      status: status.slice(0, 64),
      outcome: OUTCOMES[api][status] ?? 'unknown',
      ...(errorCode === undefined ? {} : { errorCode }),
      timestamp: isoTime(at, options.now),
    },
  ];
}
