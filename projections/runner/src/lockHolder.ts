import type { Logger, Pool, PoolClient } from '@parley/platform';
import { advisoryUnlock, tryAdvisoryLock } from './registry.js';

export interface Lease {
  /** The connection holding the lock went away: the lock is gone, stop writing. */
  readonly lost: boolean;
  release(): Promise<void>;
}

export interface LockHolder {
  /** Takes a session-level advisory lock, or returns null if another session holds it. */
  tryLock(lock: { key: string; sub: number }): Promise<Lease | null>;
  close(): Promise<void>;
}

interface HeldLease extends Lease {
  lost: boolean;
}

/**
 * One dedicated connection per runner holds the advisory locks of all the
 * generations it writes (rather than one connection per projection). If that
 * connection drops, PostgreSQL has released the locks: every lease is marked
 * lost and its loop stops and competes for the lock again. Correctness does
 * not rest on the lock (the checkpoint compare-and-set does that); the lock
 * keeps a second worker from doing the same work only to have it refused.
 */
export function createLockHolder(pool: Pool, logger: Logger): LockHolder {
  let client: PoolClient | null = null;
  let connecting: Promise<PoolClient> | null = null;
  const leases = new Set<HeldLease>();
  // Every projection loop shares the one connection: its queries go one at a time (pg deprecates
  // queueing a query on a client that is still running one).
  let tail: Promise<unknown> = Promise.resolve();
  function serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  }

  function drop(c: PoolClient, err: unknown): void {
    if (client !== c) return;
    client = null;
    for (const lease of leases) lease.lost = true;
    leases.clear();
    logger.warn({ err }, 'projection lock connection lost; its locks are released');
    c.release(err instanceof Error ? err : new Error(String(err)));
  }

  async function connection(): Promise<PoolClient> {
    if (client) return client;
    connecting ??= pool
      .connect()
      .then((c) => {
        c.on('error', (err) => drop(c, err));
        c.on('end', () => drop(c, new Error('connection ended')));
        client = c;
        return c;
      })
      .finally(() => {
        connecting = null;
      });
    return connecting;
  }

  return {
    async tryLock(lock) {
      const c = await connection();
      let ok: boolean;
      try {
        ok = await serial(() => tryAdvisoryLock(c, lock));
      } catch (err) {
        drop(c, err);
        throw err;
      }
      if (!ok) return null;
      const lease: HeldLease = {
        lost: false,
        async release() {
          if (lease.lost) return;
          lease.lost = true;
          leases.delete(lease);
          if (client !== c) return;
          await serial(() => advisoryUnlock(c, lock)).catch((err: unknown) => drop(c, err));
        },
      };
      leases.add(lease);
      return lease;
    },
    async close() {
      for (const lease of leases) lease.lost = true;
      leases.clear();
      const c = client ?? (connecting ? await connecting.catch(() => null) : null);
      client = null;
      // Ending the session releases every advisory lock it held.
      c?.release(true);
    },
  };
}
