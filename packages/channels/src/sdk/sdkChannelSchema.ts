import { z } from 'zod';

/** Spec 001 §2.4. */
export const SDK_CHANNEL_TYPES = ['web', 'mobile_ios', 'mobile_android', 'voice', 'api'] as const;
export type SdkChannelType = (typeof SDK_CHANNEL_TYPES)[number];
export const SDK_ENVIRONMENTS = ['dev', 'staging', 'production'] as const;
export type SdkEnvironment = (typeof SDK_ENVIRONMENTS)[number];
/** Spec 001 §2.5. */
export const WIDGET_MODES = ['chat', 'voice', 'unified'] as const;
export const WIDGET_POSITIONS = ['bottom-right', 'bottom-left', 'top-right', 'top-left'] as const;

export const MAX_THEME_ENTRIES = 50;

/**
 * The theme: flat entries of colours, fonts and similar (`primaryColor: '#0055ff'`, `fontSize: 14`,
 * `rounded: true`). Flat so that the widget applies them as CSS custom properties without walking
 * nested objects; names are identifiers so that they are safe as property names.
 */
const theme = z
  .record(
    z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, {
      message: 'theme keys are identifiers: a letter, then up to 63 letters, digits, _ or -',
    }),
    z.union([z.string().max(256), z.number().finite(), z.boolean()]),
  )
  .refine((t) => Object.keys(t).length <= MAX_THEME_ENTRIES, {
    message: `theme has at most ${MAX_THEME_ENTRIES} entries`,
  });

/**
 * The widget configuration an SDK channel carries (spec 001 §2.5 `config`). Every field optional:
 * the widget config route merges what is set over the defaults. Unknown keys are refused (400), not
 * kept: a misspelt `welcomeMesage` would otherwise be stored and silently never shown.
 */
export const widgetConfigSchema = z.strictObject({
  mode: z.enum(WIDGET_MODES).optional(),
  position: z.enum(WIDGET_POSITIONS).optional(),
  theme: theme.optional(),
  welcomeMessage: z.string().max(2000).optional(),
  placeholderText: z.string().max(200).optional(),
  voiceEnabled: z.boolean().optional(),
  chatEnabled: z.boolean().optional(),
});
export type WidgetConfig = z.infer<typeof widgetConfigSchema>;

const name = z.string().trim().min(1).max(200);
const publicApiKeyId = z.string().regex(/^pkk_[0-9A-Za-z]{16}$/, {
  message: 'publicApiKeyId is the id of a public key (pkk_ and 16 letters or digits)',
});
/** An opaque reference to a deployment, as on agents. */
const deploymentId = z.string().min(1).max(256);

/** POST body (spec 001 §4.6), plus `isActive` (default true) so a channel can be prepared inactive. */
export const sdkChannelInputSchema = z.strictObject({
  name,
  channelType: z.enum(SDK_CHANNEL_TYPES),
  publicApiKeyId,
  deploymentId: deploymentId.nullish(),
  config: widgetConfigSchema.default({}),
  isActive: z.boolean().default(true),
  environment: z.enum(SDK_ENVIRONMENTS).default('production'),
  followEnvironment: z.boolean().default(true),
});
export type SdkChannelInput = z.input<typeof sdkChannelInputSchema>;

/**
 * PATCH body: only the fields given change. `config` replaces the whole configuration (send the
 * complete object; `{}` returns every field to its default). `deploymentId: null` clears it.
 * `channelType` is fixed: a different kind of channel is a new channel.
 */
export const sdkChannelPatchSchema = z.strictObject({
  name: name.optional(),
  publicApiKeyId: publicApiKeyId.optional(),
  deploymentId: deploymentId.nullable().optional(),
  config: widgetConfigSchema.optional(),
  isActive: z.boolean().optional(),
  environment: z.enum(SDK_ENVIRONMENTS).optional(),
  followEnvironment: z.boolean().optional(),
});
export type SdkChannelPatch = z.input<typeof sdkChannelPatchSchema>;

export const SDK_CHANNEL_PAGE_DEFAULT = 50;
export const SDK_CHANNEL_PAGE_MAX = 200;

/** `limit` (1..200, default 50) and `offset` (0.., default 0) from a query string. */
export const sdkChannelPageSchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(SDK_CHANNEL_PAGE_MAX).default(SDK_CHANNEL_PAGE_DEFAULT),
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
});
export type SdkChannelPage = z.infer<typeof sdkChannelPageSchema>;
