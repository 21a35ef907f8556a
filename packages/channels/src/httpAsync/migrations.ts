import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/**
 * HTTP async webhook subscriptions (migrations/0001_http_async_subscriptions.sql), set
 * `channels-http-async`. Applies after auth: subscriptions belong to projects.
 */
export const httpAsyncMigrations: MigrationSet = loadMigrationSet(
  'channels-http-async',
  new URL('./migrations/', import.meta.url),
);
