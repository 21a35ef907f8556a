import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/** Agents (migrations/0001_agents.sql). Applies after auth: agents belong to projects. */
export const runtimeMigrations: MigrationSet = loadMigrationSet(
  'runtime',
  new URL('../migrations/', import.meta.url),
);
