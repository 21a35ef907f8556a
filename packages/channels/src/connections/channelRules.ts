import { z } from 'zod';
import { EMAIL_CHANNEL_TYPE, emailSettingsSchema } from '../adapters/email/index.js';
import {
  VONAGE_API_CREDENTIALS,
  VONAGE_PROVIDER,
  vonageSettingsOf,
  vonageSettingsSchema,
} from '../adapters/vonage/index.js';
import { adapterKey } from '../manifest/providers.js';
import { InvalidCredentialsError, InvalidIdentifierError, InvalidSettingsError } from './errors.js';
import { BYOC_SIP_PROVIDER, byocSipSettingsSchema } from './sipSettings.js';

/**
 * What a channel type requires of a connection beyond the manifest's credentials, checked when a
 * connection is created or changed so that a misconfiguration is refused at once instead of
 * failing every send later: its settings' schema, and the form of its identifier.
 */
interface ChannelRules {
  settings?: z.ZodType;
  /** The identifier as stored (e.g. lower-cased); throws InvalidIdentifierError when unusable. */
  identifier?(value: string): string;
  /** Credentials the settings require beyond the manifest's (a Vonage connection's API). */
  credentialsFor?(settings: Record<string, unknown>): readonly string[];
}

const emailAddress = z.email();

const RULES: Readonly<Record<string, ChannelRules>> = {
  [EMAIL_CHANNEL_TYPE]: {
    settings: emailSettingsSchema,
    // Mail is routed by RCPT TO, compared lower-cased: the identifier is the inbound address.
    identifier(value) {
      const address = value.trim().toLowerCase();
      if (!emailAddress.safeParse(address).success)
        throw new InvalidIdentifierError(EMAIL_CHANNEL_TYPE, 'the inbound email address');
      return address;
    },
  },
  // Rules of a provider variant are keyed by `<type>/<provider>` (adapterKey).
  [adapterKey('sms', VONAGE_PROVIDER)]: {
    settings: vonageSettingsSchema,
    // Vonage writes numbers without the +: the identifier is the number as its webhooks give `to`.
    identifier(value) {
      const number = value.replace(/^\+/, '');
      if (!/^\d{4,15}$/.test(number))
        throw new InvalidIdentifierError(
          'sms',
          'the Vonage number in E.164, digits only (a leading + is dropped)',
        );
      return number;
    },
    credentialsFor: (settings) => VONAGE_API_CREDENTIALS[vonageSettingsOf(settings).api],
  },
  // Bring your own carrier: the SIP gateway's address and port (docs/voice.md).
  [adapterKey('voice', BYOC_SIP_PROVIDER)]: { settings: byocSipSettingsSchema },
};

const rulesOf = (channelType: string, provider: string | null | undefined): ChannelRules | undefined =>
  RULES[adapterKey(channelType, provider)] ?? (provider ? undefined : RULES[channelType]);

/** The identifier as the channel type (or its provider) stores it (unchanged for most types). */
export function normalizeIdentifier(channelType: string, value: string, provider?: string | null): string {
  return rulesOf(channelType, provider)?.identifier?.(value) ?? value;
}

/** Throws InvalidCredentialsError when the settings require credentials the connection lacks. */
export function checkCredentialNames(
  channelType: string,
  provider: string | null | undefined,
  settings: Record<string, unknown>,
  names: readonly string[],
): void {
  const required = rulesOf(channelType, provider)?.credentialsFor?.(settings) ?? [];
  const missing = required.filter((n) => !names.includes(n));
  if (missing.length > 0) throw new InvalidCredentialsError(channelType, missing, []);
}

/** Throws InvalidSettingsError when the channel type (or its provider) checks its settings and these fail. */
export function checkSettings(
  channelType: string,
  settings: Record<string, unknown>,
  provider?: string | null,
): void {
  const schema = rulesOf(channelType, provider)?.settings;
  if (schema === undefined) return;
  const result = schema.safeParse(settings);
  if (result.success) return;
  throw new InvalidSettingsError(
    channelType,
    result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}
