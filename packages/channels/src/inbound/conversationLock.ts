import { randomUUID } from 'node:crypto';
import type { Pool } from '@parley/platform';
import { derivedUuid } from './ids.js';

/** How often a turn waiting for its conversation's lock tries again (doubling up to LOCK_POLL_MAX_MS). */
const LOCK_POLL_MS = 25;
const LOCK_POLL_MAX_MS = 250;
/** A lease lasts this long unless renewed; renewed every third of it while its holder works. */
export const CONVERSATION_LOCK_LEASE_MS = 30_000;

/** The lock's key for one conversation (connection, external session key). */
export function conversationLockKey(connectionId: string, externalSessionKey: string): string {
  return derivedUuid('conversation-lock', JSON.stringify([connectionId, externalSessionKey]));
}

/**
 * The lock as its holder sees it: a statement that records the holder's last writes can release
 * the lock in the same round trip (`releaseCte`), and says so (`released`) once it committed.
 */
export interface ConversationLease {
  /** A CTE `released as (delete ...)` with its key and holder as `$p`, `$p+1` (`values`). */
  releaseCte(p: number): string;
  readonly values: readonly [string, string];
  /** The lock was released by the holder's statement: not deleted again at the end. */
  released(): void;
}

export interface ConversationLockOptions {
  /** Give up at this time (epoch ms) instead of waiting as long as it takes. */
  deadline?: number;
  /** Checked between tries: true gives up. */
  giveUp?: () => Promise<boolean>;
  leaseMs?: number;
}

/**
 * Runs `fn` holding the conversation's lock (connection, external session key): turns of one
 * conversation never overlap, whichever process runs them. The lock is a lease row in
 * `channel_conversation_locks`, so no pooled connection is pinned while `fn` runs (a model call,
 * a tool): each statement borrows a connection for its own duration. The lease is renewed while
 * `fn` runs; if its holder dies, it expires and the next turn takes it. Without `deadline` this
 * waits as long as it takes; with one it answers `{ locked: false }` at the deadline (or when
 * `giveUp` says so) without calling `fn`. `fn`'s last statement may release the lock itself
 * (ConversationLease), saving the release's round trip.
 */
export async function withConversationLock<T>(
  pool: Pool,
  connectionId: string,
  externalSessionKey: string,
  fn: (lease: ConversationLease) => Promise<T>,
  options: ConversationLockOptions = {},
): Promise<{ locked: true; value: T } | { locked: false }> {
  const key = conversationLockKey(connectionId, externalSessionKey);
  const holder = randomUUID();
  const leaseMs = options.leaseMs ?? CONVERSATION_LOCK_LEASE_MS;
  const tryTake = async (): Promise<boolean> => {
    const { rowCount } = await pool.query(
      `insert into channel_conversation_locks (lock_key, holder, expires_at)
       values ($1, $2, now() + $3 * interval '1 millisecond')
       on conflict (lock_key) do update set holder = excluded.holder, expires_at = excluded.expires_at
       where channel_conversation_locks.expires_at < now()`,
      [key, holder, leaseMs],
    );
    return rowCount === 1;
  };
  for (let wait = LOCK_POLL_MS; !(await tryTake()); wait = Math.min(wait * 2, LOCK_POLL_MAX_MS)) {
    if (options.deadline !== undefined && Date.now() + wait > options.deadline) return { locked: false };
    if ((await options.giveUp?.()) === true) return { locked: false };
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  const renew = setInterval(
    () => {
      pool
        .query(
          `update channel_conversation_locks set expires_at = now() + $3 * interval '1 millisecond'
         where lock_key = $1 and holder = $2`,
          [key, holder, leaseMs],
        )
        .catch(() => {
          // A failed renewal is retried at the next tick; the lease covers two of them.
        });
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  renew.unref();
  let released = false;
  const lease: ConversationLease = {
    releaseCte: (p) =>
      `released as (delete from channel_conversation_locks where lock_key = $${p} and holder = $${p + 1})`,
    values: [key, holder],
    released: () => {
      released = true;
    },
  };
  try {
    return { locked: true, value: await fn(lease) };
  } finally {
    clearInterval(renew);
    if (!released) {
      await pool
        .query('delete from channel_conversation_locks where lock_key = $1 and holder = $2', [key, holder])
        .catch(() => {
          // Not released: the lease expires by itself.
        });
    }
  }
}
