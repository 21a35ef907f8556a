import { setTimeout as sleep } from 'node:timers/promises';
import type { EventStore } from '@parley/eventstore';
import { type Logger, type Pool, silentLogger } from '@parley/platform';
import type { Projection } from './defineProjection.js';
import { ensureProjections } from './ensureProjection.js';
import { createLockHolder } from './lockHolder.js';
import { type BatchApplied, type LoopContext, runProjectionLoop } from './projectionLoop.js';
import { createWaker } from './waker.js';

export interface ProjectionRunnerOptions {
  pool: Pool;
  store: EventStore;
  projections: readonly Projection[];
  logger?: Logger;
  /** Events read and applied per transaction. Default 1,000. */
  batchSize?: number;
  /** How long an idle loop waits for a wake-up before reading again. Default 500 ms. */
  pollIntervalMs?: number;
  /** How often a loop that cannot write (lock held elsewhere, rebuild required, failed) looks again. Default 2 s. */
  idleCheckMs?: number;
  /** Backoff after a failed batch (database errors; never handler errors). Default 250 ms doubling to 30 s. */
  retryBackoff?: { initialMs: number; maxMs: number };
  /** Called after each applied batch (metrics, lag measurements). Must not throw. */
  onBatchApplied?: (batch: BatchApplied) => void;
}

export interface ProjectionRunner {
  /** Registers unknown projections, then runs every projection in the background. */
  start(): Promise<void>;
  /** Graceful: each loop finishes its batch in flight, releases its lock and ends. */
  stop(): Promise<void>;
}

export function createProjectionRunner(options: ProjectionRunnerOptions): ProjectionRunner {
  const logger = options.logger ?? silentLogger();
  const stop = new AbortController();
  let running: Promise<unknown> | null = null;
  let teardown: (() => Promise<void>) | null = null;

  return {
    async start() {
      if (running) throw new Error('projection runner already started');
      await ensureProjections(options.pool, options.projections, { logger });
      const locks = createLockHolder(options.pool, logger);
      const waker = createWaker(options.store, logger, stop.signal);
      const ctx: LoopContext = {
        pool: options.pool,
        store: options.store,
        logger,
        batchSize: options.batchSize ?? 1_000,
        pollIntervalMs: options.pollIntervalMs ?? 500,
        idleCheckMs: options.idleCheckMs ?? 2_000,
        backoff: options.retryBackoff ?? { initialMs: 250, maxMs: 30_000 },
        locks,
        waker,
        onBatchApplied: options.onBatchApplied,
        stopping: () => stop.signal.aborted,
        sleep: (ms) => sleep(ms, undefined, { signal: stop.signal }).catch(() => {}),
      };
      running = Promise.all(options.projections.map((p) => runProjectionLoop(ctx, p)));
      teardown = async () => {
        await running;
        await waker.close();
        await locks.close();
      };
      logger.info({ projections: options.projections.map((p) => p.name) }, 'projection runner started');
    },
    async stop() {
      stop.abort();
      await teardown?.();
      teardown = null;
    },
  };
}
