import { type Logger, replaceUnstorableText } from '@parley/platform';
import {
  type AutomatedReason,
  automatedReason,
  EMAIL_CHANNEL_TYPE,
  type EmailThreadStore,
  readInboundEmail,
  toNormalizedMessage,
} from '../adapters/email/index.js';
import type { InboundConnectionLookup, InboundPipeline } from '../inbound/pipeline.js';
import { REPLACED_TEXT_METADATA_KEY } from '../inbound/storableMessages.js';
import type { ResolvedConnection } from '../types.js';

export type IgnoreReason = AutomatedReason | 'no_sender' | 'own_address' | 'own_message' | 'empty';

export interface ReceivedEmail {
  raw: Buffer;
  /** The envelope sender; '' or false for `MAIL FROM:<>`. */
  mailFrom: string | false;
  /** Active email connections among the envelope recipients. */
  connections: readonly ResolvedConnection[];
}

export interface EmailReceiverDeps {
  pipeline: Pick<InboundPipeline, 'deliver'>;
  connections: Pick<InboundConnectionLookup, 'resolve'>;
  threads: EmailThreadStore;
  logger: Logger;
  now?: () => Date;
}

export type ReceiveOutcome =
  | { connectionId: string; kind: 'accepted' | 'duplicate'; sessionKey: string }
  | { connectionId: string; kind: 'ignored'; reason: IgnoreReason };

/** Addresses this connection sends from, besides its inbound address. */
const ownAddressesOf = (connection: ResolvedConnection): string[] =>
  [connection.externalIdentifier, connection.settings.fromAddress, connection.settings.graphSender]
    .filter((a): a is string => typeof a === 'string')
    .map((a) => a.toLowerCase());

/**
 * An email received by SMTP, for each recipient connection: dropped when a machine sent it or it is
 * our own mail coming back (loop prevention), else threaded (In-Reply-To, then References, through
 * the thread table; a new conversation is keyed by its own Message-ID), recorded in the thread table
 * and enqueued with pipeline.deliver. Throws when something could not be stored: the SMTP server
 * answers 451 and the sender retries.
 */
export function createEmailReceiver(deps: EmailReceiverDeps) {
  const now = deps.now ?? (() => new Date());
  async function isOurs(
    connection: ResolvedConnection,
    ...addresses: (string | undefined)[]
  ): Promise<boolean> {
    for (const address of addresses) {
      if (address === undefined) continue;
      if (ownAddressesOf(connection).includes(address)) return true;
      if ((await deps.connections.resolve(EMAIL_CHANNEL_TYPE, address)) !== null) return true;
    }
    return false;
  }
  return {
    async receive(mail: ReceivedEmail): Promise<ReceiveOutcome[]> {
      // Loaded when first used: `parley start` and the other commands start faster without it.
      const { simpleParser } = await import('mailparser');
      const parsed = await simpleParser(mail.raw, {
        skipHtmlToText: false,
        skipTextToHtml: true,
        skipTextLinks: true,
        skipImageLinks: true,
      });
      // Text PostgreSQL cannot store (a NUL in a header or an 8-bit body) becomes U+FFFD before any
      // lookup: refused, the mail would be retried by the sender forever (docs/decisions.md).
      const { value: email, replaced } = replaceUnstorableText(readInboundEmail(parsed, mail.raw, now()));
      const automated = automatedReason(parsed, mail.mailFrom);
      const outcomes: ReceiveOutcome[] = [];
      for (const connection of mail.connections) {
        const log = deps.logger.child({ connectionId: connection.id, channelType: EMAIL_CHANNEL_TYPE });
        const ignore = (reason: IgnoreReason) => {
          log.info({ reason }, 'inbound email ignored');
          outcomes.push({ connectionId: connection.id, kind: 'ignored', reason });
        };
        if (automated !== null) {
          ignore(automated);
          continue;
        }
        // Nobody to answer: the reply could only fail (and count against the connection).
        if (email.from === null) {
          ignore('no_sender');
          continue;
        }
        // Self-reply loops: mail from one of our addresses (or asking for replies to one), or a
        // copy of a mail we sent.
        if (await isOurs(connection, email.from, email.replyTo)) {
          ignore('own_address');
          continue;
        }
        if (await deps.threads.isOutbound(connection.id, email.messageId)) {
          ignore('own_message');
          continue;
        }
        if (email.text === '' && email.subject === '') {
          ignore('empty');
          continue;
        }
        const refs = [
          ...(email.inReplyTo === undefined ? [] : [email.inReplyTo]),
          ...[...email.references].reverse(),
        ];
        const sessionKey = (await deps.threads.sessionKeyOf(connection.id, refs)) ?? email.messageId;
        await deps.threads.record(connection.id, email.messageId, sessionKey, 'inbound');
        const message = toNormalizedMessage(email, sessionKey);
        if (replaced.length > 0) {
          log.warn(
            { fields: replaced },
            'inbound email held text PostgreSQL cannot store: replaced with U+FFFD',
          );
          message.metadata = { ...message.metadata, [REPLACED_TEXT_METADATA_KEY]: replaced };
        }
        const counts = await deps.pipeline.deliver(connection, [message]);
        outcomes.push({
          connectionId: connection.id,
          kind: counts.accepted > 0 ? 'accepted' : 'duplicate',
          sessionKey,
        });
      }
      return outcomes;
    },
  };
}
export type EmailReceiver = ReturnType<typeof createEmailReceiver>;
