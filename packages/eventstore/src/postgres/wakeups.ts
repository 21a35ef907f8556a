import type { Logger, Pool } from '@parley/platform';
import { type Listener, startListener } from './listener.js';

export type WaitOutcome = 'woken' | 'timeout' | 'aborted';

/**
 * Wake-ups for readers of one store. A wake-up only says "read again": readers
 * always re-read the log, so a lost or extra wake-up costs latency, never events.
 */
export interface Wakeups {
  /** Bumped by every wake-up; a reader notes it before reading and waits with it. */
  generation(): number;
  /** Resolves at the first wake-up after `seen`, after `ms`, or on abort. */
  wait(seen: number, ms: number, signal: AbortSignal): Promise<WaitOutcome>;
  /** After a commit that appended: wakes this process's readers, and others through pg_notify. */
  appended(): void;
  /** Starts the shared LISTEN connection (idempotent; the first subscriber calls it). */
  listen(): void;
  close(): Promise<void>;
}

export interface WakeupsOptions {
  pool: Pool;
  channel: string;
  /** For the LISTEN connection; without one, readers only poll. */
  connectionString: string | undefined;
  logger: Logger;
  /**
   * At most one pg_notify per this many milliseconds (default NOTIFY_INTERVAL_MS): the first
   * append after a quiet spell notifies at once, appends within the interval after it share one
   * more notify at its end. 0: one in flight at a time, the next as soon as it returns.
   */
  notifyIntervalMs?: number;
}

/** The default least time between two pg_notify of one store (docs/log.md "Wake-ups and polling"). */
export const NOTIFY_INTERVAL_MS = 5;

export function createWakeups(options: WakeupsOptions): Wakeups {
  const { pool, channel, logger } = options;
  let generation = 0;
  const waiters = new Set<() => void>();
  let closed = false;
  let listener: Listener | undefined;
  const interval = options.notifyIntervalMs ?? NOTIFY_INTERVAL_MS;
  if (!Number.isFinite(interval) || interval < 0) {
    throw new RangeError(`notifyIntervalMs must be a number of milliseconds >= 0, got ${interval}`);
  }
  // One notify in flight at most; `pending`: an append committed since the last one was sent.
  let notifying: Promise<void> | undefined;
  let notifyTimer: NodeJS.Timeout | undefined;
  let pending = false;
  let lastSent = Number.NEGATIVE_INFINITY;

  const wake = () => {
    generation += 1;
    for (const waiter of [...waiters]) waiter();
  };

  // Outside any append transaction: NOTIFY inside one would serialise every commit on the
  // cluster-wide notify queue lock.
  const notify = async () => {
    pending = false;
    lastSent = performance.now();
    try {
      // NOTIFY gives its transaction an id, so its commit would wait for a WAL flush like an
      // append's; a wake-up needs no durability (a lost one costs latency, never events).
      await pool.query(`select set_config('synchronous_commit', 'off', true), pg_notify($1, '')`, [channel]);
    } catch (err) {
      logger.debug({ err }, 'log wake-up notify failed; readers elsewhere will poll');
    }
    notifying = undefined;
    if (pending && !closed) schedule();
  };

  // Leading and trailing edge: a notify goes out at once unless one went out less than
  // `interval` ago or is in flight; then one more follows, covering every append since.
  const schedule = () => {
    if (notifying !== undefined || notifyTimer !== undefined) return;
    const wait = lastSent + interval - performance.now();
    if (wait <= 0) {
      notifying = notify();
      return;
    }
    notifyTimer = setTimeout(() => {
      notifyTimer = undefined;
      if (!closed) notifying = notify();
    }, wait);
    notifyTimer.unref();
  };

  return {
    generation: () => generation,
    wait(seen, ms, signal) {
      if (signal.aborted) return Promise.resolve('aborted');
      if (generation !== seen) return Promise.resolve('woken');
      return new Promise((resolve) => {
        const finish = (outcome: WaitOutcome) => {
          clearTimeout(timer);
          waiters.delete(onWake);
          signal.removeEventListener('abort', onAbort);
          resolve(outcome);
        };
        const onWake = () => finish('woken');
        const onAbort = () => finish('aborted');
        const timer = setTimeout(() => finish('timeout'), ms);
        waiters.add(onWake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    appended() {
      wake();
      if (closed) return;
      pending = true;
      schedule();
    },
    listen() {
      if (listener || closed) return;
      if (options.connectionString === undefined) {
        logger.info('no connection string for LISTEN: log readers poll only');
        listener = { close: async () => {} };
        return;
      }
      listener = startListener({ connectionString: options.connectionString, channel, logger, onWake: wake });
    },
    async close() {
      closed = true;
      clearTimeout(notifyTimer);
      notifyTimer = undefined;
      await listener?.close();
      await notifying;
      // An append whose notify was still waiting for its turn: send it now.
      if (pending) await notify();
      wake();
    },
  };
}
