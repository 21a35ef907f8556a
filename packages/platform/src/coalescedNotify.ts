import type { Logger } from './logger.js';

/**
 * Wake-ups sent with pg_notify after the caller's commit, at most one statement per interval.
 *
 * Why not NOTIFY in the writer's own statement: PostgreSQL takes one cluster-wide lock for the
 * commit of every transaction that notified and holds it through the commit's WAL flush, so
 * notifying writers commit one at a time (measured on the development machine: 8 clients
 * inserting a row, 1,200–14,000/s; the same insert with a pg_notify, 260–4,900/s). Here the
 * notification goes in its own transaction, with synchronous_commit off (a wake-up needs no
 * durability: a lost one costs the listener's polling delay, never work), and writers within one
 * interval share it.
 */
export interface CoalescedNotify {
  /** After a commit: `payload` is notified on the channel now, or with the next notify of the interval. */
  notify(payload: string): void;
  /** Sends what is pending now and waits for it. */
  close(): Promise<void>;
}

export interface CoalescedNotifyOptions {
  /** Runs the notify statement (autocommitted): the pool. */
  pool: { query(text: string, values?: unknown[]): Promise<unknown> };
  channel: string;
  logger: Logger;
  /**
   * Least time between two notify statements (default 5 ms): the first call after a quiet spell
   * notifies at once, calls within the interval after it share one more statement at its end
   * (one notification per distinct payload). 0: one statement in flight, the next when it returns.
   */
  intervalMs?: number;
}

export const COALESCED_NOTIFY_INTERVAL_MS = 5;

export function createCoalescedNotify(options: CoalescedNotifyOptions): CoalescedNotify {
  const { pool, channel, logger } = options;
  const interval = options.intervalMs ?? COALESCED_NOTIFY_INTERVAL_MS;
  if (!Number.isFinite(interval) || interval < 0) {
    throw new RangeError(`intervalMs must be a number of milliseconds >= 0, got ${interval}`);
  }
  let pending = new Set<string>();
  let sending: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastSent = Number.NEGATIVE_INFINITY;
  let closed = false;

  const send = async () => {
    const payloads = [...pending];
    pending = new Set();
    lastSent = performance.now();
    try {
      await pool.query(
        `select set_config('synchronous_commit', 'off', true), pg_notify($1, p) from unnest($2::text[]) p`,
        [channel, payloads],
      );
    } catch (err) {
      logger.debug({ err, channel }, 'wake-up notify failed; listeners will poll');
    }
    sending = undefined;
    if (pending.size > 0 && !closed) schedule();
  };

  // Leading and trailing edge: at once unless one went out less than `interval` ago or is in
  // flight; then one more, covering every call since. Each statement starts after the commits
  // of the calls it covers (they were made after their commits).
  const schedule = () => {
    if (sending !== undefined || timer !== undefined) return;
    const wait = lastSent + interval - performance.now();
    if (wait <= 0) {
      sending = send();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      if (!closed) sending = send();
    }, wait);
    timer.unref();
  };

  return {
    notify(payload) {
      pending.add(payload);
      if (!closed) schedule();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
      await sending;
      if (pending.size > 0) await send();
    },
  };
}
