import type { SmtpConfig } from './emailSettings.js';
import type { EmailTransport } from './emailTransport.js';

const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };

/**
 * Sends through the connection's SMTP relay: `starttls` (port 587: STARTTLS required, the send
 * fails rather than go out in clear text), `implicit` (port 465: TLS from the first byte), `none`
 * (clear text; local relays). A reply code 5xx is permanent, 4xx and network errors are retryable.
 */
export function smtpTransport(config: SmtpConfig): EmailTransport {
  return {
    async send(email) {
      // Loaded when first used: `parley start` and the other commands start faster without it.
      const { default: nodemailer } = await import('nodemailer');
      const transporter = nodemailer.createTransport({
        host: config.host,
        port: config.port,
        secure: config.tlsMode === 'implicit',
        requireTLS: config.tlsMode === 'starttls',
        ignoreTLS: config.tlsMode === 'none',
        tls: { rejectUnauthorized: config.rejectUnauthorized },
        ...(config.auth === undefined ? {} : { auth: config.auth }),
        ...TIMEOUTS,
      });
      try {
        await transporter.sendMail({ envelope: email.envelope, raw: email.raw });
        return { ok: true, externalMessageId: email.messageId };
      } catch (err) {
        const e = err as { responseCode?: unknown; code?: unknown };
        const status = typeof e.responseCode === 'number' ? e.responseCode : undefined;
        const code = typeof e.code === 'string' ? e.code : 'ESEND';
        return {
          ok: false,
          retryable: status === undefined || status < 500,
          error: status === undefined ? `smtp ${code}` : `smtp ${status} ${code}`,
          ...(status === undefined ? {} : { status }),
        };
      } finally {
        transporter.close();
      }
    },
  };
}
