import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/**
 * SDK channels (migrations/0001_sdk_channels.sql), set `channels-sdk`. Applies after auth: channels
 * belong to projects and reference `public_api_keys` (auth migration 0002).
 */
export const channelsSdkMigrations: MigrationSet = loadMigrationSet(
  'channels-sdk',
  new URL('./migrations/', import.meta.url),
);
