import type { Pool, PoolClient } from './db.js';

/** The schema pg-boss keeps its queues and jobs in: every PgBoss instance of Parley is made with it. */
export const PG_BOSS_SCHEMA = 'pgboss';

/**
 * Whether pg-boss has the queue. The worker creates the queues when it starts; an API that sends a
 * job before any worker ran answers 503 QUEUE_UNAVAILABLE rather than losing the job.
 */
export async function pgBossQueueExists(q: Pool | PoolClient, queue: string): Promise<boolean> {
  const { rows } = await q.query<{ ok: boolean }>(
    `select exists (select 1 from ${PG_BOSS_SCHEMA}.queue where name = $1) as ok`,
    [queue],
  );
  return rows[0]?.ok === true;
}

/** PostgreSQL's undefined_table and invalid_schema_name: pg-boss's tables are not there yet. */
export function isMissingRelation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '42P01' || code === '3F000';
}

/** pg-boss 12's error code for a job sent to a queue that does not exist. */
export const PG_BOSS_QUEUE_NOT_FOUND = 'PGBOSS_QUEUE_NOT_FOUND';

/**
 * A pg-boss send with the answer callers check: null when no job was added, for a job id it already
 * has or for a queue that does not exist (pg-boss 10 answered null for both; pg-boss 12 throws for the
 * second). The callers tell the two apart with pgBossQueueExists.
 */
export function nullIfQueueMissing(sent: Promise<string | null>): Promise<string | null> {
  return sent.catch((err: unknown) => {
    if ((err as { code?: unknown } | null)?.code === PG_BOSS_QUEUE_NOT_FOUND) return null;
    throw err;
  });
}

/** What ensureQueue needs of a pg-boss instance (PgBoss satisfies it). */
export interface QueueAdmin<Policy> {
  getQueue(name: string): Promise<unknown>;
  createQueue(name: string, policy: Policy): Promise<void>;
  updateQueue(name: string, policy: Policy): Promise<void>;
}

/**
 * deadlock_detected, serialization_failure and unique_violation: what two workers creating queues at
 * the same moment run into (pg-boss creates a partition per queue; creating queue A here and queue B
 * there can deadlock on its catalog locks). Trying again after the other finished succeeds.
 */
const RACE_CODES = new Set(['40P01', '40001', '23505']);
const ENSURE_ATTEMPTS = 5;

/** Creates the queue, or updates its policy when it exists (several workers may start at once). */
export async function ensureQueue<Policy>(
  boss: QueueAdmin<Policy>,
  name: string,
  policy: Policy,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let creating = false;
    try {
      if (await boss.getQueue(name)) await boss.updateQueue(name, policy);
      else {
        creating = true;
        await boss.createQueue(name, policy);
      }
      return;
    } catch (err) {
      // Another worker created it at the same moment (with the same policy: it runs this code).
      if (creating && (await boss.getQueue(name).catch(() => false))) return;
      const code = (err as { code?: unknown } | null)?.code;
      if (attempt >= ENSURE_ATTEMPTS || typeof code !== 'string' || !RACE_CODES.has(code)) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 200 * attempt));
    }
  }
}
