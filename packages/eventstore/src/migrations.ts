import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/** The log's tables (streams, events); see docs/log.md. */
export const eventStoreMigrations: MigrationSet = loadMigrationSet(
  'eventstore',
  new URL('../migrations/', import.meta.url),
);
