import { createHash } from 'node:crypto';
import type { AddressObject, HeaderValue, ParsedMail } from 'mailparser';
import type { NormalizedMessage } from '../../types.js';
import { stripQuotedReply } from './emailQuotes.js';

/** Inbound text kept per email (characters); a longer body is cut (the job payload stays bounded). */
export const MAX_EMAIL_TEXT = 100_000;
/** Message ids kept from References (the most recent ones): enough to find a thread, bounded. */
export const MAX_REFERENCES = 50;

export interface EmailAttachmentInfo {
  filename: string | null;
  contentType: string;
  size: number;
}

/** One inbound email as the channel reads it (before threading gives it a session key). */
export interface InboundEmail {
  /** The Message-ID without angle brackets, or `sha256:<hex of the raw message>` when it has none. */
  messageId: string;
  inReplyTo?: string;
  /** References, oldest first, without angle brackets. */
  references: string[];
  /** Sender address (lower-cased), null when the From header has none. */
  from: string | null;
  fromName?: string;
  /** The Reply-To address, when the sender asked for replies elsewhere. */
  replyTo?: string;
  to: string[];
  cc: string[];
  subject: string;
  /** Body text (the HTML part as text when there is no text part) without quoted reply history. */
  text: string;
  /** Date header (ISO 8601) or the time of receipt. */
  timestamp: string;
  attachments: EmailAttachmentInfo[];
}

/** Message ids in a header value: `<a@b> <c@d>` or bare ids separated by spaces or commas. */
export function messageIdsIn(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const text = typeof value === 'string' ? value : value.join(' ');
  const bracketed = [...text.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1] as string);
  if (bracketed.length > 0) return bracketed;
  return text.split(/[\s,]+/).filter((id) => id !== '' && id.length <= 998);
}

const addressesOf = (value: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value])
    .flatMap((group) => group.value)
    .flatMap((a) => [a, ...(a.group ?? [])])
    .map((a) => a.address?.toLowerCase())
    .filter((a): a is string => a !== undefined && a !== '');

/** A header's text (the value of a structured header), lower-cased; undefined when absent. */
export function headerText(headers: ParsedMail['headers'], name: string): string | undefined {
  const value: HeaderValue | undefined = headers.get(name);
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value.toLowerCase();
  if (Array.isArray(value)) return value.join(', ').toLowerCase();
  if (typeof value === 'object' && value !== null && 'value' in value && typeof value.value === 'string') {
    return value.value.toLowerCase();
  }
  return String(value).toLowerCase();
}

export function readInboundEmail(parsed: ParsedMail, raw: Buffer, receivedAt: Date): InboundEmail {
  const messageId =
    messageIdsIn(parsed.messageId)[0] ?? `sha256:${createHash('sha256').update(raw).digest('hex')}`;
  const inReplyTo = messageIdsIn(parsed.inReplyTo)[0];
  const sender = parsed.from?.value[0];
  const replyTo = addressesOf(parsed.replyTo)[0];
  const body = stripQuotedReply(parsed.text ?? '');
  const subject = (parsed.subject ?? '').trim();
  const dated =
    parsed.headers.has('date') && parsed.date !== undefined && !Number.isNaN(parsed.date.getTime());
  return {
    messageId,
    ...(inReplyTo === undefined ? {} : { inReplyTo }),
    references: messageIdsIn(parsed.references).slice(-MAX_REFERENCES),
    from: sender?.address ? sender.address.toLowerCase() : null,
    ...(sender?.name ? { fromName: sender.name } : {}),
    ...(replyTo === undefined ? {} : { replyTo }),
    to: addressesOf(parsed.to),
    cc: addressesOf(parsed.cc),
    subject,
    text: body.length > MAX_EMAIL_TEXT ? body.slice(0, MAX_EMAIL_TEXT) : body,
    timestamp: (dated ? (parsed.date as Date) : receivedAt).toISOString(),
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename ?? null,
      contentType: a.contentType,
      size: a.size,
    })),
  };
}

export type AutomatedReason =
  | 'null_sender'
  | 'auto_submitted'
  | 'auto_reply_header'
  | 'precedence'
  | 'auto_response_suppressed'
  | 'delivery_report';

/**
 * Why an email was sent by a machine and must not be answered (loop prevention), or null:
 * - the envelope sender is empty (`MAIL FROM:<>`: bounces and delivery notifications);
 * - `Auto-Submitted` is anything but `no` (RFC 3834: auto-replied, auto-generated, auto-notified);
 * - `X-Autoreply` or `X-Autorespond` is present (vacation responders that predate RFC 3834);
 * - `Precedence` is `bulk`, `junk`, `list` or `auto_reply`;
 * - `X-Auto-Response-Suppress` asks for no auto-replies (`All` or `AutoReply`, Exchange);
 * - the content type is `multipart/report` (delivery and read reports).
 * `List-Id` alone is not a reason: support addresses are often reached through a group alias.
 */
export function automatedReason(
  parsed: ParsedMail,
  envelopeFrom: string | false | null,
): AutomatedReason | null {
  if (envelopeFrom === false || envelopeFrom === null || envelopeFrom === '') return 'null_sender';
  const h = parsed.headers;
  const autoSubmitted = headerText(h, 'auto-submitted')?.split(';')[0]?.trim();
  if (autoSubmitted !== undefined && autoSubmitted !== 'no') return 'auto_submitted';
  if (h.has('x-autoreply') || h.has('x-autorespond')) return 'auto_reply_header';
  const precedence = headerText(h, 'precedence')?.trim();
  if (precedence !== undefined && ['bulk', 'junk', 'list', 'auto_reply'].includes(precedence))
    return 'precedence';
  const suppress = headerText(h, 'x-auto-response-suppress')
    ?.split(',')
    .map((v) => v.trim());
  if (suppress?.some((v) => v === 'all' || v === 'autoreply')) return 'auto_response_suppressed';
  if (headerText(h, 'content-type')?.startsWith('multipart/report')) return 'delivery_report';
  return null;
}

/** The spec 001 §2.1 message of an email in the conversation `sessionKey`. */
export function toNormalizedMessage(email: InboundEmail, sessionKey: string): NormalizedMessage {
  return {
    externalMessageId: email.messageId,
    externalSessionKey: sessionKey,
    text: email.text === '' ? email.subject : email.text,
    timestamp: email.timestamp,
    ...(email.from === null ? {} : { channelUserId: email.from }),
    metadata: {
      from: email.from,
      ...(email.fromName === undefined ? {} : { fromName: email.fromName }),
      ...(email.replyTo === undefined ? {} : { replyTo: email.replyTo }),
      to: email.to,
      ...(email.cc.length === 0 ? {} : { cc: email.cc }),
      subject: email.subject,
      messageId: email.messageId,
      ...(email.inReplyTo === undefined ? {} : { inReplyTo: email.inReplyTo }),
      references: email.references,
      attachments: email.attachments,
    },
  };
}
