import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/**
 * The email channel's tables (migrations/0001_channel_email.sql): Message-ID threading, the
 * auto-reply cooldown and the outcome of each reply. Independent of the other sets (no foreign keys).
 */
export const channelEmailMigrations: MigrationSet = loadMigrationSet(
  'channels-email',
  new URL('./migrations/', import.meta.url),
);
