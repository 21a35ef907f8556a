import { z } from 'zod';
import { EMAIL_CHANNEL_TYPE, emailSettingsSchema } from '../adapters/email/emailSettings.js';
import { InvalidIdentifierError, InvalidSettingsError } from './errors.js';

/**
 * What a channel type requires of a connection beyond the manifest's credentials, checked when a
 * connection is created or changed so that a misconfiguration is refused at once instead of
 * failing every send later: its settings' schema, and the form of its identifier.
 */
interface ChannelRules {
  settings?: z.ZodType;
  /** The identifier as stored (e.g. lower-cased); throws InvalidIdentifierError when unusable. */
  identifier?(value: string): string;
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
};

/** The identifier as the channel type stores it (unchanged for most types). */
export function normalizeIdentifier(channelType: string, value: string): string {
  return RULES[channelType]?.identifier?.(value) ?? value;
}

/** Throws InvalidSettingsError when the channel type checks its settings and these fail. */
export function checkSettings(channelType: string, settings: Record<string, unknown>): void {
  const schema = RULES[channelType]?.settings;
  if (schema === undefined) return;
  const result = schema.safeParse(settings);
  if (result.success) return;
  throw new InvalidSettingsError(
    channelType,
    result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}
