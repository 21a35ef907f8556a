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
}

export function createWakeups(options: WakeupsOptions): Wakeups {
  const { pool, channel, logger } = options;
  let generation = 0;
  const waiters = new Set<() => void>();
  let closed = false;
  let listener: Listener | undefined;
  let notifying: Promise<void> | undefined;
  let notifyAgain = false;

  const wake = () => {
    generation += 1;
    for (const waiter of [...waiters]) waiter();
  };

  // At most one pg_notify in flight per store; appends committed meanwhile are
  // coalesced into one more. Outside any append transaction: NOTIFY inside one
  // would serialise every commit on the cluster-wide notify queue lock.
  const notifyLoop = async () => {
    do {
      notifyAgain = false;
      try {
        // NOTIFY gives its transaction an id, so its commit would wait for a WAL flush like an
        // append's; a wake-up needs no durability (a lost one costs latency, never events).
        await pool.query(`select set_config('synchronous_commit', 'off', true), pg_notify($1, '')`, [
          channel,
        ]);
      } catch (err) {
        logger.debug({ err }, 'log wake-up notify failed; readers elsewhere will poll');
      }
    } while (notifyAgain && !closed);
    notifying = undefined;
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
      if (notifying) notifyAgain = true;
      else notifying = notifyLoop();
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
      await notifying;
      wake();
    },
  };
}
