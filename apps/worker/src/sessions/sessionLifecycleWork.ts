import type { EventStore } from '@parley/eventstore';
import { isConnectionError, type Logger, type Pool } from '@parley/platform';
import { runLifecycleSweep } from './lifecycleSweep.js';
import type { LifecycleThresholds } from './lifecycleTransitions.js';

export interface SessionLifecycleOptions {
  thresholds: LifecycleThresholds;
  /** How often the sweep runs (SESSION_LIFECYCLE_SWEEP_INTERVAL_SECONDS). */
  sweepIntervalMs: number;
}

export interface SessionLifecycleWork {
  start(): void;
  stop(): Promise<void>;
}

/** The session lifecycle sweep on a timer; a sweep still running when the timer fires is not doubled. */
export function createSessionLifecycleWork(
  base: { pool: Pool; store: EventStore; logger: Logger; batchSize: number },
  options: SessionLifecycleOptions,
): SessionLifecycleWork {
  const { idleAfterMs, abandonAfterMs } = options.thresholds;
  if (!(idleAfterMs > 0 && abandonAfterMs > idleAfterMs)) {
    throw new RangeError('session lifecycle: the abandon threshold must be greater than the idle threshold');
  }
  const logger = base.logger.child({ subsystem: 'session-lifecycle' });
  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;
  // A sweep over a large backlog (thousands of sessions going idle at once) would hold a graceful
  // stop past its deadline: stop() ends it between two sessions.
  const stopping = new AbortController();

  const sweep = () => {
    if (sweeping) return;
    sweeping = runLifecycleSweep({
      pool: base.pool,
      store: base.store,
      logger,
      thresholds: options.thresholds,
      batchSize: base.batchSize,
      signal: stopping.signal,
    })
      .catch((err: unknown) => {
        // The database away: the next sweep catches up (every transition is timed by the session).
        if (isConnectionError(err))
          logger.warn({ err }, 'session lifecycle sweep skipped: database unavailable');
        else logger.error({ err }, 'session lifecycle sweep failed');
      })
      .finally(() => {
        sweeping = null;
      });
  };

  return {
    start() {
      sweep();
      timer = setInterval(sweep, options.sweepIntervalMs);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      stopping.abort();
      await sweeping;
    },
  };
}
