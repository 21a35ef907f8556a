import type { OutgoingReply } from '../../types.js';
import { actionSetAsText } from '../sms/index.js';
import { markdownToText } from './markdownToText.js';

/** Outbound attachments per email, in total (decoded bytes): the usual relay limit is 10-25 MB. */
export const MAX_OUTBOUND_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Buffer;
}

export interface EmailOutput {
  /** text/plain body. */
  text: string;
  attachments: EmailAttachment[];
  /** Attachments of the reply that were not sent (not base64, too large, malformed), for the log. */
  dropped: number;
}

/**
 * Attachments a reply may carry in `richContent.attachments`: `{ filename, contentType?,
 * contentBase64 }` each. Only inline content: fetching URLs on the agent's behalf is not done.
 */
function attachmentsOf(richContent: Record<string, unknown> | undefined): {
  attachments: EmailAttachment[];
  dropped: number;
} {
  const list = richContent?.attachments;
  if (!Array.isArray(list)) return { attachments: [], dropped: 0 };
  const attachments: EmailAttachment[] = [];
  let total = 0;
  let dropped = 0;
  for (const item of list as unknown[]) {
    const a = item as { filename?: unknown; contentType?: unknown; contentBase64?: unknown } | null;
    if (
      a === null ||
      typeof a !== 'object' ||
      typeof a.filename !== 'string' ||
      a.filename.trim() === '' ||
      a.filename.length > 255 ||
      typeof a.contentBase64 !== 'string' ||
      !/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(a.contentBase64)
    ) {
      dropped += 1;
      continue;
    }
    const content = Buffer.from(a.contentBase64, 'base64');
    if (total + content.length > MAX_OUTBOUND_ATTACHMENT_BYTES) {
      dropped += 1;
      continue;
    }
    total += content.length;
    attachments.push({
      filename: a.filename.replace(/[\r\n"\\/]/g, '_'),
      contentType:
        typeof a.contentType === 'string' && /^[\w.+-]+\/[\w.+-]+$/.test(a.contentType)
          ? a.contentType
          : 'application/octet-stream',
      content,
    });
  }
  return { attachments, dropped };
}

/**
 * The reply as a plain-text email (spec 001 "Email channel": plain text from markdown): the text
 * converted from markdown, then the ACTION_SET as numbered options (as on SMS), plus inline attachments.
 */
export function toEmailOutput(reply: OutgoingReply): EmailOutput {
  const options = reply.actionSet === undefined ? '' : actionSetAsText(reply.actionSet);
  const text = [markdownToText(reply.text), options].filter((t) => t.trim() !== '').join('\n\n');
  return { text, ...attachmentsOf(reply.richContent) };
}
