import { loadMigrationSet, type MigrationSet } from '@parley/platform';

/** Tenants, projects, environments and API keys (migrations/0001_auth.sql), public widget keys (0002). */
export const authMigrations: MigrationSet = loadMigrationSet(
  'auth',
  new URL('../migrations/', import.meta.url),
);
