import type { NormalizedMessage } from '../../types.js';
import { isRecord } from '../shared.js';

/** The form parameters of a provider webhook (names may repeat), from the raw body. */
export const smsParams = (body: unknown, rawBody: Buffer): [string, string][] => {
  if (rawBody.length > 0) return [...new URLSearchParams(rawBody.toString('utf8')).entries()];
  if (!isRecord(body)) return [];
  return Object.entries(body).filter((p): p is [string, string] => typeof p[1] === 'string');
};

const first = (params: readonly (readonly [string, string])[], name: string): string | undefined =>
  params.find(([key]) => key === name)?.[1];

export interface SmsParseOptions {
  /** Only messages to this number (the connection identifier). */
  onlyNumber?: string;
  /** Only messages of this account (the connection's accountSid). */
  accountSid?: string;
  /** The message time: the provider sends none. */
  now: Date;
}

/**
 * An inbound SMS webhook of the Twilio-style provider (form fields From, To, Body, MessageSid,
 * AccountSid) to a normalized message. Ignored: status callbacks (`MessageStatus`, or an
 * `SmsStatus` other than `received`), messages without text (media only), other numbers or
 * accounts. Session key: the sender's number (one conversation per sender and number).
 */
export const parseSmsWebhook = (
  params: readonly (readonly [string, string])[],
  options: SmsParseOptions,
): NormalizedMessage[] => {
  const from = first(params, 'From');
  const to = first(params, 'To');
  const body = first(params, 'Body');
  const messageSid = first(params, 'MessageSid') ?? first(params, 'SmsMessageSid');
  const accountSid = first(params, 'AccountSid');
  const smsStatus = first(params, 'SmsStatus');
  if (from === undefined || from === '' || to === undefined || messageSid === undefined || messageSid === '')
    return [];
  if (first(params, 'MessageStatus') !== undefined || (smsStatus !== undefined && smsStatus !== 'received'))
    return [];
  if (body === undefined || body.trim() === '') return [];
  if (options.onlyNumber !== undefined && to !== options.onlyNumber) return [];
  if (options.accountSid !== undefined && accountSid !== options.accountSid) return [];
  const numMedia = Number(first(params, 'NumMedia') ?? '0');
  const messagingServiceSid = first(params, 'MessagingServiceSid');
  return [
    {
      externalMessageId: messageSid,
      externalSessionKey: from,
      text: body,
      metadata: {
        from,
        to,
        messageSid,
        accountSid,
        ...(messagingServiceSid === undefined ? {} : { messagingServiceSid }),
        ...(Number.isFinite(numMedia) && numMedia > 0 ? { numMedia } : {}),
      },
      timestamp: options.now.toISOString(),
      channelUserId: from,
    },
  ];
};

/** The connection identifier of a webhook: the provider number the message was sent to. */
export const smsToNumber = (params: readonly (readonly [string, string])[]): string | null => {
  const to = first(params, 'To');
  return to === undefined || to === '' ? null : to;
};
