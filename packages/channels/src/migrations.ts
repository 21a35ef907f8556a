import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/** Channel connections (migrations/0001_channel_connections.sql, 0002: their provider). Applies after auth: connections belong to projects. */
export const channelsMigrations: MigrationSet = loadMigrationSet(
  'channels',
  new URL('../migrations/', import.meta.url),
);
