import type { AddressInfo } from 'node:net';
import type { Logger } from '@parley/platform';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { EMAIL_CHANNEL_TYPE } from '../adapters/email/index.js';
import type { InboundConnectionLookup } from '../inbound/pipeline.js';
import type { ResolvedConnection } from '../types.js';
import type { EmailReceiver } from './emailReceiver.js';

/** Default largest message accepted (bytes): larger ones are refused with 552. */
export const DEFAULT_EMAIL_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Recipients per message; more are refused with 452 (RFC 5321 §4.5.3.1.8: the client sends the rest later). */
export const MAX_EMAIL_RECIPIENTS = 50;

export interface EmailSmtpServerOptions {
  receiver: EmailReceiver;
  connections: Pick<InboundConnectionLookup, 'resolve'>;
  logger: Logger;
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** PEM key and certificate: STARTTLS is offered; without them it is not. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  maxMessageBytes?: number;
  /** Name in the greeting and EHLO answer; default the machine's host name. */
  hostname?: string;
}

export interface EmailSmtpServer {
  /** Listens; resolves with the bound port. */
  start(): Promise<number>;
  /** Stops accepting; lets the sessions in progress end. */
  stop(): Promise<void>;
}

const smtpError = (responseCode: number, message: string): Error =>
  Object.assign(new Error(message), { responseCode });

/**
 * The inbound SMTP server of the email channel: mail is accepted only for recipients that are
 * active email connections (never a relay: any other RCPT TO is 550), up to maxMessageBytes (552
 * above), without AUTH. 250 is answered only once the message is enqueued (its dedupe row and job
 * committed) or deliberately ignored (loop prevention); any failure to store it is 451, so the
 * sending server retries.
 */
export function createEmailSmtpServer(options: EmailSmtpServerOptions): EmailSmtpServer {
  const { logger, connections, receiver } = options;
  const maxBytes = options.maxMessageBytes ?? DEFAULT_EMAIL_MAX_MESSAGE_BYTES;

  async function connectionOf(address: string): Promise<ResolvedConnection | null> {
    const lower = address.toLowerCase();
    const found = await connections.resolve(EMAIL_CHANNEL_TYPE, lower);
    if (found !== null || lower === address) return found;
    return connections.resolve(EMAIL_CHANNEL_TYPE, address);
  }

  function onRcptTo(
    address: SMTPServerAddress,
    session: SMTPServerSession,
    callback: (err?: Error | null) => void,
  ) {
    if (session.envelope.rcptTo.length >= MAX_EMAIL_RECIPIENTS) {
      callback(smtpError(452, '4.5.3 Too many recipients'));
      return;
    }
    connectionOf(address.address).then(
      (connection) => {
        if (connection === null) callback(smtpError(550, '5.1.1 Mailbox unavailable'));
        // An inactive connection keeps its configuration but takes no mail: the sender gets a bounce
        // instead of silence (spec 001 §3.1).
        else if (!connection.active) callback(smtpError(550, '5.2.1 Mailbox disabled'));
        else callback();
      },
      (err: unknown) => {
        logger.error({ err }, 'email recipient lookup failed');
        callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
      },
    );
  }

  function onData(
    stream: NodeJS.ReadableStream & { sizeExceeded?: boolean },
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ) {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    stream.on('end', () => {
      if (stream.sizeExceeded === true || size > maxBytes) {
        callback(smtpError(552, `5.3.4 Message exceeds the maximum size of ${maxBytes} bytes`));
        return;
      }
      const raw = Buffer.concat(chunks);
      const { mailFrom, rcptTo } = session.envelope;
      (async () => {
        const recipients = await Promise.all(rcptTo.map((r) => connectionOf(r.address)));
        const unique = new Map(
          recipients.filter((c): c is ResolvedConnection => c?.active === true).map((c) => [c.id, c]),
        );
        return receiver.receive({
          raw,
          mailFrom: mailFrom === false ? false : mailFrom.address,
          connections: [...unique.values()],
        });
      })().then(
        () => callback(null, 'OK: message accepted'),
        (err: unknown) => {
          logger.error({ err }, 'inbound email not stored; answered 451');
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    });
  }

  const server = new SMTPServer({
    ...(options.hostname === undefined ? {} : { name: options.hostname }),
    banner: 'Parley',
    size: maxBytes,
    rejectOversized: true,
    authOptional: true,
    disabledCommands: options.tls === undefined ? ['AUTH', 'STARTTLS'] : ['AUTH'],
    ...(options.tls === undefined ? {} : { key: options.tls.key, cert: options.tls.cert }),
    logger: false,
    onRcptTo,
    onData,
  });
  server.on('error', (err) => logger.error({ err }, 'email SMTP server error'));

  return {
    start: () =>
      new Promise<number>((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(options.port, options.host, () => {
          server.server.off('error', reject);
          const bound = (server.server.address() as AddressInfo).port;
          logger.info(
            { host: options.host, port: bound, starttls: options.tls !== undefined },
            'email SMTP server listening',
          );
          resolve(bound);
        });
      }),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
