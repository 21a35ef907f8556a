export * from './sdkChannelErrors.js';
export * from './sdkChannelSchema.js';
export * from './sdkChannelStore.js';
export * from './sdkChannelTokens.js';
export { channelsSdkMigrations } from './sdkMigrations.js';
