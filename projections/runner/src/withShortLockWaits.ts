import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolClient } from '@parley/platform';

/** How long one attempt waits for a lock: far under deadlock_timeout (1 s), so no cycle is ever detected. */
const LOCK_WAIT_MS = 100;
const ATTEMPTS = 100;

/**
 * Runs `body` (statements that take ACCESS EXCLUSIVE locks one after another: replacing views,
 * dropping tables) inside the caller's open transaction, all or nothing. Taking them one by one, we
 * would hold the first while waiting for the second, which a read may hold while it waits for the
 * first: a deadlock, and PostgreSQL aborts one of the two after a second (a read's 500, or a failed
 * rebuild). So each attempt waits at most LOCK_WAIT_MS for any lock, then gives back everything it
 * took (rollback to a savepoint) and tries again after a short random pause: the reads in the way
 * finish (a page is milliseconds), and a later attempt gets every lock.
 */
export async function withShortLockWaits<T>(client: PoolClient, body: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await client.query('savepoint short_lock_waits');
    try {
      await client.query(`set local lock_timeout = '${LOCK_WAIT_MS}ms'`);
      const result = await body();
      await client.query('set local lock_timeout to default');
      await client.query('release savepoint short_lock_waits');
      return result;
    } catch (err) {
      // Back to before the attempt: its locks, its changes and its lock_timeout are given back.
      await client.query('rollback to savepoint short_lock_waits');
      await client.query('release savepoint short_lock_waits');
      if ((err as { code?: unknown }).code !== '55P03' || attempt >= ATTEMPTS) throw err;
      await sleep(Math.random() * LOCK_WAIT_MS);
    }
  }
}
