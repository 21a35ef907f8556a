import { createHash } from 'node:crypto';
import { PG_BOSS_QUEUE_NOT_FOUND } from '@parley/platform';
import type { PgBoss, SendOptions } from 'pg-boss';

/** What runs the statement: the pool (autocommit) or a client inside the caller's transaction. */
export interface StatementRunner {
  query(query: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * The caller's part of the statement: CTE definitions (`name as (...)`, parameters from `$2` on,
 * `$1` is the job), the SQL condition over them under which the job is inserted, and the columns
 * of the one row the statement answers.
 */
export interface JobStatement {
  ctes: string;
  when: string;
  select: string;
  values: readonly unknown[];
}

/** The job insert did not do what the statement's condition asked: the statement was undone. */
export class JobNotInsertedError extends Error {
  override readonly name = 'JobNotInsertedError';
}

/** pg-boss's insert of one job, as `send` hands it to a `db` executor (queues without pg-boss's own NOTIFY). */
const JOB_ROWS = 'json_to_recordset($1::text::json)';

/**
 * The caller's CTEs and pg-boss's job insert as one statement: `with <ctes>, job as (<insert>)`.
 * The insert reads its job only when `when` holds, and the statement fails (division by zero,
 * undoing every CTE's writes) when the job was not inserted although `when` held (its id taken).
 */
export function composeJobStatement(insertSql: string, statement: JobStatement): string {
  const at = insertSql.indexOf(JOB_ROWS);
  if (/^\s*with\b/i.test(insertSql) || at < 0 || insertSql.indexOf(JOB_ROWS, at + 1) >= 0) {
    throw new Error('pg-boss job insert of an unexpected shape: cannot share a statement');
  }
  const guarded = `${insertSql.slice(0, at)}json_to_recordset((select $1::text where ${statement.when})::json)${insertSql.slice(at + JOB_ROWS.length)}`;
  return `with ${statement.ctes},
  job as (${guarded})
  select ${statement.select}, array(select id::text from job) as job_ids,
    1 / (case when (select count(*) from job) = (case when ${statement.when} then 1 else 0 end)
         then 1 else 0 end) as job_check`;
}

/** Prepared statement names by text (each shape is a few; bounded all the same). */
const names = new Map<string, string>();
const MAX_NAMES = 256;

/**
 * A prepared statement's name for the composed text: each pooled connection parses and plans a
 * shape once instead of on every call (the job insert is long: pg-boss's columns and defaults).
 */
function statementName(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `job_in_statement_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(sql, name);
  }
  return name;
}

/**
 * Runs the caller's writes and a pg-boss job insert in one statement (one round trip; atomic
 * without begin/commit, and inside the caller's transaction when `runner` is its client). pg-boss
 * builds the insert (`send` with a `db` executor: the queue's policy, retries, expiry); the
 * executor runs it with the caller's CTEs. Answers the statement's row (job_ids: the inserted
 * job's id, or none when `when` did not hold). A queue that does not exist throws pg-boss's
 * PGBOSS_QUEUE_NOT_FOUND (nothing written).
 */
export async function sendJobInStatement<Row extends object>(
  runner: StatementRunner,
  boss: Pick<PgBoss, 'send'>,
  job: { queue: string; data: object; options: SendOptions },
  statement: JobStatement,
): Promise<Row & { job_ids: string[] }> {
  let row: (Row & { job_ids: string[] }) | undefined;
  await boss
    .send(job.queue, job.data, {
      ...job.options,
      db: {
        executeSql: async (text, values) => {
          const sql = composeJobStatement(text, statement);
          const query = { name: statementName(sql), text: sql, values: [values?.[0], ...statement.values] };
          const result = await runner.query(query).catch((err: unknown) => {
            if ((err as { code?: unknown }).code === '22012') {
              throw new JobNotInsertedError(`the ${job.queue} job was not inserted (its id is taken)`);
            }
            throw err;
          });
          row = result.rows[0] as Row & { job_ids: string[] };
          return { rows: row.job_ids.map((id) => ({ id })) };
        },
      },
    })
    .catch((err: unknown) => {
      // The queue was deleted after this instance cached it: pg-boss reports it uncoded for a
      // caller's executor (its transaction would be aborted); here the statement simply failed.
      const cause = (err as { cause?: { code?: unknown } }).cause;
      if (cause?.code === '23503') {
        throw Object.assign(new Error(`Queue ${job.queue} does not exist`, { cause }), {
          code: PG_BOSS_QUEUE_NOT_FOUND,
        });
      }
      throw err;
    });
  if (row === undefined) throw new Error('pg-boss did not run the job insert');
  return row;
}
