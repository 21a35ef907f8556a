import { loadMigrationSet } from '@parley/platform';

/** The registry tables (migration set `projections`); projection tables themselves are made by ensureProjection. */
export const projectionRunnerMigrations = loadMigrationSet(
  'projections',
  new URL('../migrations/', import.meta.url),
);
