import { PG_BOSS_SCHEMA, type Pool } from '@parley/platform';
import PgBoss from 'pg-boss';

/** pg-boss's tables live in this schema of the Parley database. */
export { PG_BOSS_SCHEMA };

/**
 * A pg-boss instance on the worker's own pool (no second pool, same database), schema `pgboss`.
 * Started by the caller; `boss.start()` creates or migrates its schema.
 */
export function createJobQueue(
  pool: Pool,
  options: { maintenanceIntervalSeconds?: number; supervise?: boolean } = {},
): PgBoss {
  return new PgBoss({
    db: { executeSql: (text, values) => pool.query(text, values) },
    schema: PG_BOSS_SCHEMA,
    // Archive finished jobs after a day and drop them after a week (defaults: 12 h and 7 d).
    archiveCompletedAfterSeconds: 86_400,
    ...options,
  });
}
