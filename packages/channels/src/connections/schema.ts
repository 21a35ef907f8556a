import { z } from 'zod';

/** Routing key of inbound messages: one URL path segment (no whitespace, `/`, `?`, `#`). */
export const externalIdentifierSchema = z.string().regex(/^[^\s/?#%\\]{1,256}$/, {
  message: 'externalIdentifier is 1-256 characters without whitespace, /, ?, #, %, \\',
});

/** Credential names: camelCase identifiers, e.g. botToken, signingSecret. */
export const credentialNameSchema = z.string().regex(/^[a-z][A-Za-z0-9]{0,63}$/);
const credentialValue = z.string().min(1).max(8192);

export const MAX_CREDENTIALS = 20;
const SETTINGS_MAX_BYTES = 16_384;

const agentName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
  message:
    'an agent name is 1-64 characters: letters, digits, `_`, `.`, `-`, starting with a letter or digit',
});
const deploymentId = z.string().min(1).max(256);
const name = z.string().trim().min(1).max(200);

/**
 * Non-secret settings (JSON values). `apiBaseUrl` (http or https URL) overrides the platform API base URL the
 * adapter sends to (ChannelHttp.apiBaseUrl); the store also runs the SSRF guard on it (apiBaseUrl.ts:
 * it needs DNS, so not here). Secrets go in `credentials`, never here.
 */
export const connectionSettingsSchema = z
  .record(z.string().min(1).max(64), z.unknown())
  .refine((s) => !Object.hasOwn(s, '__proto__'), { message: 'settings may not have a __proto__ key' })
  .refine((s) => JSON.stringify(s).length <= SETTINGS_MAX_BYTES, {
    message: `settings are at most ${SETTINGS_MAX_BYTES} bytes of JSON`,
  })
  .refine(
    (s) =>
      s.apiBaseUrl === undefined ||
      (typeof s.apiBaseUrl === 'string' && z.url({ protocol: /^https?$/ }).safeParse(s.apiBaseUrl).success),
    { message: 'settings.apiBaseUrl must be an http or https URL' },
  );

export const connectionInputSchema = z.strictObject({
  channelType: z.string().min(1).max(64),
  /**
   * The provider variant (docs/channels.md "Provider variants"): one of the manifest entry's
   * `providers`; absent: the default one. Not for channel types without variants. Cannot change.
   */
  provider: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/)
    .optional(),
  externalIdentifier: externalIdentifierSchema,
  name: name.optional(),
  agentName: agentName.nullable().optional(),
  deploymentId: deploymentId.nullable().optional(),
  /** Default true. */
  active: z.boolean().optional(),
  credentials: z
    .record(credentialNameSchema, credentialValue)
    .refine((c) => Object.keys(c).length <= MAX_CREDENTIALS, {
      message: `at most ${MAX_CREDENTIALS} credentials`,
    })
    .default({}),
  settings: connectionSettingsSchema.optional(),
});
export type ConnectionInput = z.input<typeof connectionInputSchema>;

export const connectionPatchSchema = z.strictObject({
  externalIdentifier: externalIdentifierSchema.optional(),
  name: name.nullable().optional(),
  agentName: agentName.nullable().optional(),
  deploymentId: deploymentId.nullable().optional(),
  active: z.boolean().optional(),
  /** Merged into the stored credentials: a string sets one, null removes it. */
  credentials: z
    .record(credentialNameSchema, credentialValue.nullable())
    .refine((c) => Object.keys(c).length <= MAX_CREDENTIALS, {
      message: `at most ${MAX_CREDENTIALS} credentials`,
    })
    .optional(),
  /** Replaces the settings. */
  settings: connectionSettingsSchema.optional(),
});
export type ConnectionPatch = z.input<typeof connectionPatchSchema>;
