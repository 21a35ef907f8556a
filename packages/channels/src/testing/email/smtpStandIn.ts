import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CapturedEmail {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  parsed: ParsedMail;
  /** The session used TLS (STARTTLS or implicit). */
  secure: boolean;
  user?: string;
}

export interface SmtpStandInOptions {
  /** `starttls`: STARTTLS offered with smtp-server's built-in test certificate; `implicit`: TLS from the start; `none`: clear text. */
  tls: 'starttls' | 'implicit' | 'none';
  /** Credentials the relay requires (AUTH PLAIN/LOGIN); none: no AUTH. */
  auth?: { user: string; pass: string };
  /** An SMTP error for a message (e.g. 451 or 550), or null to accept it. */
  refuse?: (mail: { rcptTo: string[] }) => { code: number; message: string } | null;
}

/**
 * A local SMTP relay standing in for the connection's outbound server: captures every accepted
 * message (raw and parsed). TLS uses smtp-server's built-in self-signed test certificate, so the
 * connection under test sets `tlsRejectUnauthorized: false` (test-only).
 */
export async function startSmtpStandIn(options: SmtpStandInOptions) {
  const captured: CapturedEmail[] = [];
  const server = new SMTPServer({
    secure: options.tls === 'implicit',
    disabledCommands: [
      ...(options.auth === undefined ? ['AUTH'] : []),
      ...(options.tls === 'none' ? ['STARTTLS'] : []),
    ],
    authOptional: options.auth === undefined,
    allowInsecureAuth: options.tls === 'none',
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.auth?.user && auth.password === options.auth?.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(Object.assign(new Error('5.7.8 Authentication failed'), { responseCode: 535 }));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        const refusal = options.refuse?.({ rcptTo }) ?? null;
        if (refusal !== null) {
          callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
          return;
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            captured.push({
              mailFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
              rcptTo,
              raw,
              parsed,
              secure: session.secure,
              ...(session.user === undefined ? {} : { user: String(session.user) }),
            });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    captured,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
