import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/** Tenants, projects, environments and API keys (migrations/0001_auth.sql). */
export const authMigrations: MigrationSet = loadMigrationSet(
  'auth',
  new URL('../migrations/', import.meta.url),
);
