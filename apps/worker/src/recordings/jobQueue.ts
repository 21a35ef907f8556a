import { PG_BOSS_SCHEMA, type Pool } from '@parley/platform';
import { type ConstructorOptions, PgBoss } from 'pg-boss';

/** pg-boss's tables live in this schema of the Parley database. */
export { PG_BOSS_SCHEMA };

/**
 * A pg-boss instance on the worker's own pool (no second pool, same database), schema `pgboss`.
 * Started by the caller; `boss.start()` creates or migrates its schema.
 */
export function createJobQueue(
  pool: Pool,
  // Tests shorten the supervision passes (expiry of jobs whose worker died happens in them).
  options: Pick<ConstructorOptions, 'supervise' | 'superviseIntervalSeconds' | 'monitorIntervalSeconds'> = {},
): PgBoss {
  return new PgBoss({
    db: { executeSql: (text, values) => pool.query(text, values) },
    // Finished jobs stay in the job table for a week (pg-boss's deleteAfterSeconds default; pg-boss 11
    // and later have no archive table): long enough for the enqueuer to see a job was already sent.
    schema: PG_BOSS_SCHEMA,
    ...options,
  });
}
