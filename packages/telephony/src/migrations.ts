import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/** Telephony accounts and log-consumer checkpoints (migrations/0001_telephony.sql); after the auth set. */
export const telephonyMigrations: MigrationSet = loadMigrationSet(
  'telephony',
  new URL('../migrations/', import.meta.url),
);
