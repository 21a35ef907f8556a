import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/**
 * HTTP async webhook subscriptions and conversations (migrations/), set `channels-http-async`.
 * Applies after auth (subscriptions belong to projects) and after `channels-inbound` (its
 * conversations use channel_sessions).
 */
export const httpAsyncMigrations: MigrationSet = loadMigrationSet(
  'channels-http-async',
  new URL('./migrations/', import.meta.url),
);
