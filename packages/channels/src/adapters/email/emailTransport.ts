import type { SendResult } from '../../types.js';

/** One composed email and its SMTP envelope. */
export interface OutboundEmail {
  envelope: { from: string; to: string[] };
  /** The RFC 5322 message (composeReplyEmail). */
  raw: Buffer;
  /** Its Message-ID without angle brackets (reported as the external message id). */
  messageId: string;
}

/**
 * The outbound side of the email channel: an SMTP relay (smtpTransport) or Microsoft Graph
 * sendMail (graphTransport). Never throws for a refusal: `retryable` says whether a retry can help
 * (4xx SMTP replies, network errors, HTTP 429/5xx); error texts carry codes, never credentials.
 */
export interface EmailTransport {
  send(email: OutboundEmail): Promise<SendResult>;
}
