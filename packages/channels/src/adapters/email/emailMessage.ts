import MailComposer from 'nodemailer/lib/mail-composer';
import { derivedUuid } from '../../inbound/ids.js';
import type { EmailAttachment } from './emailTransform.js';

/** How many References a reply carries (the most recent): headers stay short, threads still join. */
const MAX_REFERENCES_OUT = 20;

export interface ReplyEmail {
  from: { address: string; name?: string };
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  /** Without angle brackets. */
  messageId: string;
  inReplyTo?: string;
  references: readonly string[];
  attachments: readonly EmailAttachment[];
  date: Date;
}

/**
 * The Message-ID of the email that carries one reply: derived from the reply message id, so a
 * retried send reuses it (receivers drop the duplicate) and the thread table knows it before sending.
 */
export function outboundMessageId(connectionId: string, replyMessageId: string, fromAddress: string): string {
  const domain = fromAddress.split('@')[1] ?? 'parley.invalid';
  return `parley.${derivedUuid('email-message-id', JSON.stringify([connectionId, replyMessageId]))}@${domain}`;
}

/** The References of a reply to `inbound`: its References, then its Message-ID (RFC 5322 §3.6.4). */
export function replyReferences(references: readonly string[], inReplyTo: string | undefined): string[] {
  const all =
    inReplyTo === undefined ? [...references] : [...references.filter((r) => r !== inReplyTo), inReplyTo];
  return all.slice(-MAX_REFERENCES_OUT);
}

const bracket = (id: string): string => `<${id}>`;

/**
 * The reply as a MIME message (RFC 5322): the same bytes go to an SMTP relay or to Graph's
 * sendMail. `Auto-Submitted: auto-replied` (RFC 3834) and `X-Auto-Response-Suppress: All` keep
 * other responders from answering it.
 */
export async function composeReplyEmail(mail: ReplyEmail): Promise<Buffer> {
  const composer = new MailComposer({
    from:
      mail.from.name === undefined ? mail.from.address : { name: mail.from.name, address: mail.from.address },
    to: mail.to,
    ...(mail.replyTo === undefined ? {} : { replyTo: mail.replyTo }),
    subject: mail.subject,
    text: mail.text,
    messageId: bracket(mail.messageId),
    date: mail.date,
    ...(mail.inReplyTo === undefined ? {} : { inReplyTo: bracket(mail.inReplyTo) }),
    ...(mail.references.length === 0 ? {} : { references: mail.references.map(bracket).join(' ') }),
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
    attachments: mail.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
  });
  return composer.compile().build();
}
