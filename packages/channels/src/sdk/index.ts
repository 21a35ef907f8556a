/**
 * SDK channels: widget configuration and share/embed tokens: what the rest of @parley/channels and
 * its users import from here.
 */
export {
  SDK_CHANNEL_TYPES,
  SDK_ENVIRONMENTS,
  sdkChannelInputSchema,
  sdkChannelPageSchema,
  sdkChannelPatchSchema,
  widgetConfigSchema,
} from './sdkChannelSchema.js';
export { createSdkChannelStore, type SdkChannel, type SdkChannelStore } from './sdkChannelStore.js';
export {
  createSdkChannelTokens,
  SDK_CHANNEL_TOKEN_KINDS,
  SDK_CHANNEL_TOKEN_MAX_TTL_SECONDS,
  SDK_CHANNEL_TOKEN_MIN_TTL_SECONDS,
  type SdkChannelTokens,
} from './sdkChannelTokens.js';
export { channelsSdkMigrations } from './sdkMigrations.js';
