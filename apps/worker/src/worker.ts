import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import { createProjectionRunner, type Projection } from '@parley/projection-runner';

export interface WorkerOptions {
  pool: Pool;
  store: EventStore;
  logger: Logger;
  projections: readonly Projection[];
  batchSize: number;
  pollIntervalMs: number;
}

export interface Worker {
  start(): Promise<void>;
  /** Finishes the work in flight, then stops. */
  stop(): Promise<void>;
}

/**
 * The worker process's work: today the projection runner; later issues add
 * inbound-message processing, callback delivery, media fetch, idle sweeps and
 * the NATS relay, each started and stopped here.
 */
export function createWorker(options: WorkerOptions): Worker {
  const runner = createProjectionRunner({
    pool: options.pool,
    store: options.store,
    projections: options.projections,
    logger: options.logger.child({ subsystem: 'projections' }),
    batchSize: options.batchSize,
    pollIntervalMs: options.pollIntervalMs,
  });
  return {
    async start() {
      await runner.start();
      options.logger.info({ projections: options.projections.map((p) => p.name) }, 'worker started');
    },
    async stop() {
      await runner.stop();
      options.logger.info('worker stopped');
    },
  };
}
