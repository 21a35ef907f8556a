import { createCoalescedNotify, type Logger, type Pool } from '@parley/platform';
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
  const wake = () => {
    generation += 1;
    for (const waiter of [...waiters]) waiter();
  };

  // After the append's commit, outside its transaction, at most one statement per interval:
  // platform's createCoalescedNotify (a NOTIFY inside the append would serialise every commit on
  // the cluster-wide notify queue lock; a lost wake-up costs latency, never events).
  const notifier = createCoalescedNotify({ pool, channel, logger, intervalMs: interval });

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
      if (!closed) notifier.notify('');
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
      await listener?.close();
      // An append whose notify was still waiting for its turn is sent now.
      await notifier.close();
      wake();
    },
  };
}
