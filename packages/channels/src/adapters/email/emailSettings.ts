import { z } from 'zod';
import type { ResolvedConnection } from '../../types.js';

export const EMAIL_CHANNEL_TYPE = 'email';
/** Spec 001 §8: default time between two auto-replies to one address. */
export const DEFAULT_AUTO_REPLY_THRESHOLD_SECONDS = 60;
export const EMAIL_CREDENTIALS = {
  smtp: ['smtpUsername', 'smtpPassword'],
  graph: ['graphClientId', 'graphClientSecret', 'graphTenantId'],
} as const;

const address = z.email().max(254);
const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * The non-secret settings of an `email` connection (its `settings`; credentials hold the SMTP or
 * Graph secrets). Unknown keys (apiBaseUrl, displayName...) are allowed: the connection keeps
 * generic settings too. For the connections API to check on create and update.
 */
export const emailSettingsSchema = z
  .looseObject({
    /** Outbound transport (spec 001 "Email channel"): `smtp` (default) or `graph` (Microsoft Graph sendMail). */
    transport: z.enum(['smtp', 'graph']).default('smtp'),
    smtpHost: z.string().trim().min(1).max(253).optional(),
    /** Default by tlsMode: 587 (starttls), 465 (implicit), 25 (none). */
    smtpPort: z.number().int().min(1).max(65_535).optional(),
    /** Default: `implicit` on port 465, else `starttls`. `none` sends in clear text (local relays only). */
    tlsMode: z.enum(['starttls', 'implicit', 'none']).optional(),
    /** false accepts any server certificate: for self-signed test relays only. */
    tlsRejectUnauthorized: z.boolean().default(true),
    /** Display name of the sender (`"Acme Support" <support@acme.example>`). */
    senderName: z.string().trim().min(1).max(200).optional(),
    /** Address replies should go to (Reply-To), when not the sender's. */
    replyTo: address.optional(),
    /** Sender address; default: the connection's inbound address (its externalIdentifier). */
    fromAddress: address.optional(),
    /** At most one reply per sender address per this many seconds (spec 001 §8); 0: no cooldown. */
    autoReplyThresholdSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(DEFAULT_AUTO_REPLY_THRESHOLD_SECONDS),
    /** Graph: the mailbox that sends (`/users/<graphSender>/sendMail`); default: the sender address. */
    graphSender: address.optional(),
    /** Graph token endpoint base; default https://login.microsoftonline.com (national clouds, tests). */
    graphLoginBaseUrl: httpUrl.optional(),
  })
  .superRefine((s, ctx) => {
    if (s.transport === 'smtp' && s.smtpHost === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['smtpHost'],
        message: 'smtpHost is required for the smtp transport',
      });
    }
  });
export type EmailSettings = z.output<typeof emailSettingsSchema>;

export type SmtpConfig = {
  kind: 'smtp';
  host: string;
  port: number;
  tlsMode: 'starttls' | 'implicit' | 'none';
  rejectUnauthorized: boolean;
  auth?: { user: string; pass: string };
};
export type GraphConfig = {
  kind: 'graph';
  sender: string;
  loginBaseUrl: string;
  clientId: string;
  clientSecret: string;
  tenantId: string;
};

/** What a send needs, read from one connection; `error` names the setting, never a secret value. */
export type EmailConfig =
  | {
      ok: true;
      from: { address: string; name?: string };
      replyTo?: string;
      autoReplyThresholdSeconds: number;
      transport: SmtpConfig | GraphConfig;
    }
  | { ok: false; error: string };

const DEFAULT_PORTS = { starttls: 587, implicit: 465, none: 25 } as const;

/** The connection's email configuration, validated where it is used (a clear permanent error when not). */
export function emailConfigOf(connection: ResolvedConnection): EmailConfig {
  const parsed = emailSettingsSchema.safeParse(connection.settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      error: `email settings invalid: ${issue?.path.join('.') || 'settings'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  const s = parsed.data;
  const fromAddress = (s.fromAddress ?? connection.externalIdentifier).toLowerCase();
  if (!address.safeParse(fromAddress).success) {
    return {
      ok: false,
      error: 'email settings invalid: the inbound address (externalIdentifier) is not an email address',
    };
  }
  const base = {
    ok: true as const,
    from: { address: fromAddress, ...(s.senderName === undefined ? {} : { name: s.senderName }) },
    ...(s.replyTo === undefined ? {} : { replyTo: s.replyTo }),
    autoReplyThresholdSeconds: s.autoReplyThresholdSeconds,
  };
  const c = connection.credentials;
  if (s.transport === 'graph') {
    const missing = EMAIL_CREDENTIALS.graph.filter((name) => !c[name]);
    if (missing.length > 0)
      return { ok: false, error: `email graph transport: missing credentials ${missing.join(', ')}` };
    return {
      ...base,
      transport: {
        kind: 'graph',
        sender: s.graphSender ?? fromAddress,
        loginBaseUrl: s.graphLoginBaseUrl ?? 'https://login.microsoftonline.com',
        clientId: c.graphClientId as string,
        clientSecret: c.graphClientSecret as string,
        tenantId: c.graphTenantId as string,
      },
    };
  }
  if (Boolean(c.smtpUsername) !== Boolean(c.smtpPassword)) {
    return { ok: false, error: 'email smtp transport: smtpUsername and smtpPassword go together' };
  }
  const tlsMode = s.tlsMode ?? (s.smtpPort === 465 ? 'implicit' : 'starttls');
  return {
    ...base,
    transport: {
      kind: 'smtp',
      host: s.smtpHost as string,
      port: s.smtpPort ?? DEFAULT_PORTS[tlsMode],
      tlsMode,
      rejectUnauthorized: s.tlsRejectUnauthorized,
      ...(c.smtpUsername && c.smtpPassword ? { auth: { user: c.smtpUsername, pass: c.smtpPassword } } : {}),
    },
  };
}
