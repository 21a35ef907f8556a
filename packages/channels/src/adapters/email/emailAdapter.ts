import type { Logger, Pool } from '@parley/platform';
import type { ChannelAdapter, OutgoingMessage, ResolvedConnection, SendResult } from '../../adapter.js';
import type { ChannelHttp } from '../../types.js';
import { composeReplyEmail, outboundMessageId, replyReferences } from './emailMessage.js';
import { EMAIL_CHANNEL_TYPE, emailConfigOf } from './emailSettings.js';
import { replySubject } from './emailSubject.js';
import { createEmailThreadStore, type EmailThreadStore } from './emailThreads.js';
import type { EmailOutput } from './emailTransform.js';
import { toEmailOutput } from './emailTransform.js';
import type { EmailTransport } from './emailTransport.js';
import { type GraphTokenCache, graphTransport } from './graphTransport.js';
import { smtpTransport } from './smtpTransport.js';

export interface EmailAdapterOptions {
  /** The email tables (channelEmailMigrations): threading, cooldown, reply outcomes. */
  pool: Pool;
  now?: () => Date;
  /** Where suppressed replies and dropped attachments are logged. */
  logger?: Logger;
}

export type EmailAdapter = ChannelAdapter & { readonly threads: EmailThreadStore };

/** ChannelSendSuppressed.reason of a reply held back by the per-address cooldown. */
export const EMAIL_COOLDOWN_REASON = 'auto_reply_cooldown';

const isString = (v: unknown): v is string => typeof v === 'string' && v !== '';
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter(isString) : []);

/**
 * The `email` channel (spec 001 "Email channel"). Inbound mail arrives by SMTP (the worker's
 * server, packages/channels/src/email), not by webhook: verifyRequest refuses and parseIncoming
 * yields nothing. sendResponse answers the sender (its Reply-To when given) in the thread of the
 * inbound mail, at most once per autoReplyThresholdSeconds per address.
 */
export function createEmailAdapter(options: EmailAdapterOptions): EmailAdapter {
  const now = options.now ?? (() => new Date());
  const threads = createEmailThreadStore(options.pool);
  const tokens: GraphTokenCache = new Map();

  const transportOf = (
    transport: Extract<ReturnType<typeof emailConfigOf>, { ok: true }>['transport'],
    http: ChannelHttp,
  ): EmailTransport =>
    transport.kind === 'smtp' ? smtpTransport(transport) : graphTransport(transport, http, tokens, now);

  async function sendResponse(
    message: OutgoingMessage,
    connection: ResolvedConnection,
    http: ChannelHttp,
  ): Promise<SendResult> {
    const config = emailConfigOf(connection);
    if (!config.ok) return { ok: false, retryable: false, error: config.error };
    const meta = message.metadata;
    const recipient = (
      isString(meta.replyTo) ? meta.replyTo : isString(meta.from) ? meta.from : ''
    ).toLowerCase();
    if (recipient === '')
      return { ok: false, retryable: false, error: 'email: the inbound mail has no sender address' };
    if (recipient === config.from.address || recipient === connection.externalIdentifier.toLowerCase()) {
      return { ok: false, retryable: false, error: 'email: refusing to reply to our own address' };
    }
    const messageId = outboundMessageId(connection.id, message.messageId, config.from.address);

    // A send job run again after its outcome was recorded does nothing more.
    const done = await threads.outcomeOf(connection.id, message.messageId);
    if (done !== null)
      return done === 'sent'
        ? { ok: true, externalMessageId: messageId }
        : { ok: true, suppressed: EMAIL_COOLDOWN_REASON };

    if (config.autoReplyThresholdSeconds > 0) {
      const claimed = await threads.claimReplySlot(
        connection.id,
        recipient,
        message.messageId,
        now(),
        config.autoReplyThresholdSeconds,
      );
      if (!claimed) {
        // Loop prevention (spec 001 §8): the agent's answer is in the session; only the email is held back.
        await threads.recordOutcome(connection.id, message.messageId, {
          emailMessageId: messageId,
          recipient,
          outcome: 'suppressed',
        });
        options.logger?.warn(
          { connectionId: connection.id, replyMessageId: message.messageId },
          'email reply suppressed: auto-reply cooldown of the address',
        );
        return { ok: true, suppressed: EMAIL_COOLDOWN_REASON };
      }
    }

    const output = (message.channelOutput as EmailOutput | undefined) ?? toEmailOutput(message.reply);
    if (output.dropped > 0) {
      options.logger?.warn(
        { connectionId: connection.id, dropped: output.dropped },
        'email reply attachments dropped (not inline base64, malformed or over the size limit)',
      );
    }
    const inReplyTo =
      isString(meta.messageId) && !meta.messageId.startsWith('sha256:') ? meta.messageId : undefined;
    const raw = await composeReplyEmail({
      from: config.from,
      to: recipient,
      ...(config.replyTo === undefined ? {} : { replyTo: config.replyTo }),
      subject: replySubject(isString(meta.subject) ? meta.subject : undefined),
      text: output.text,
      messageId,
      ...(inReplyTo === undefined ? {} : { inReplyTo }),
      references: replyReferences(strings(meta.references), inReplyTo),
      attachments: output.attachments,
      date: now(),
    });
    // Known before it is sent: an answer that comes back fast still finds its session.
    await threads.record(connection.id, messageId, message.externalSessionKey, 'outbound');
    const result = await transportOf(config.transport, http).send({
      envelope: { from: config.from.address, to: [recipient] },
      raw,
      messageId,
    });
    if (result.ok) {
      await threads.recordOutcome(connection.id, message.messageId, {
        emailMessageId: messageId,
        recipient,
        outcome: 'sent',
      });
    }
    return result;
  }

  return {
    channelType: EMAIL_CHANNEL_TYPE,
    threads,
    // Email has no webhook: mail arrives through the SMTP server, which resolves the connection itself.
    verifyRequest: () => false,
    parseIncoming: () => [],
    transformOutput: (reply) => toEmailOutput(reply),
    sendResponse,
  };
}
