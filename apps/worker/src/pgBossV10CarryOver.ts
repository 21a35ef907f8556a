import { type Logger, PG_BOSS_SCHEMA, type Pool, pgBossQueueExists, withTransaction } from '@parley/platform';
import { type JobInsert, PgBoss } from 'pg-boss';

/** Where packages/channels/migrations/0002_pgboss_v10_set_aside.sql puts a pg-boss 10 schema. */
export const PG_BOSS_V10_SCHEMA = 'pgboss_v10';

// Serialises workers starting together: one carries the jobs over, the others find the schema gone.
const CARRY_OVER_LOCK = 'parley:pgboss-v10-carry-over';

interface V10Job {
  id: string;
  name: string;
  priority: number;
  data: object | null;
  retry_limit: number;
  retry_count: number;
  retry_delay: number;
  retry_backoff: boolean;
  start_after: Date;
  singleton_key: string | null;
  expire_in_seconds: number;
}

export interface CarryOverResult {
  /** Jobs still to run, now in pg-boss 12's queues (same ids and data). */
  carried: number;
  /** Jobs still to run whose queue this worker does not have (the feature is off): not kept. */
  dropped: number;
}

function toInsert(job: V10Job): JobInsert {
  return {
    id: job.id,
    data: job.data ?? {},
    priority: job.priority,
    // pg-boss 12 takes no retry count: the attempts left become the limit.
    retryLimit: Math.max(0, job.retry_limit - job.retry_count),
    retryDelay: job.retry_delay,
    retryBackoff: job.retry_backoff,
    startAfter: job.start_after,
    ...(job.singleton_key === null ? {} : { singletonKey: job.singleton_key }),
    expireInSeconds: Math.max(1, Math.round(job.expire_in_seconds)),
  };
}

/**
 * Carries the jobs pg-boss 10 still had to run (created, retry, and active ones, whose worker is gone)
 * from the set-aside `pgboss_v10` schema into pg-boss 12's queues, then drops `pgboss_v10`, in one
 * transaction. Runs once the worker's queues exist; a no-op (one catalog lookup) when there is no
 * such schema. Finished and failed jobs are not kept: the log holds what they did.
 */
export async function carryOverPgBossV10Jobs(pool: Pool, logger: Logger): Promise<CarryOverResult | null> {
  const result = await withTransaction(pool, async (client) => {
    await client.query('select pg_advisory_xact_lock(hashtext($1))', [CARRY_OVER_LOCK]);
    // Both schemas must be there: pg-boss 10's to carry from, pg-boss 12's (made by a started
    // instance) to carry into. A worker without queues leaves it to one with them.
    const { rows: found } = await client.query<{ ok: boolean }>(
      `select to_regnamespace($1) is not null and to_regclass($2) is not null as ok`,
      [PG_BOSS_V10_SCHEMA, `${PG_BOSS_SCHEMA}.queue`],
    );
    if (!found[0]?.ok) return null;
    const { rows } = await client.query<V10Job>(
      `select id, name, priority, data, retry_limit, retry_count, retry_delay, retry_backoff, start_after,
              singleton_key, extract(epoch from expire_in)::float8 as expire_in_seconds
         from ${PG_BOSS_V10_SCHEMA}.job
        where state in ('created', 'retry', 'active')
        order by created_on`,
    );
    const boss = new PgBoss({
      db: { executeSql: (text, values) => client.query(text, values) },
      schema: PG_BOSS_SCHEMA,
    });
    const db = { executeSql: (text: string, values?: unknown[]) => client.query(text, values) };
    let carried = 0;
    let dropped = 0;
    for (const [name, jobs] of Map.groupBy(rows, (job) => job.name)) {
      if (!(await pgBossQueueExists(client, name))) {
        dropped += jobs.length;
        continue;
      }
      await boss.insert(name, jobs.map(toInsert), { db });
      carried += jobs.length;
    }
    await client.query(`drop schema ${PG_BOSS_V10_SCHEMA} cascade`);
    return { carried, dropped };
  });
  if (result) logger.info(result, 'pg-boss 10 jobs carried over to pg-boss 12; pgboss_v10 dropped');
  return result;
}
