import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import { createProjectionRunner, type Projection } from '@parley/projection-runner';
import { type ChannelsWorkOptions, createChannelsWork } from './channels/channelsWork.js';
import { createRecordingsWork, type RecordingsWorkOptions } from './recordings/recordingsWork.js';
import { createSessionLifecycleWork, type SessionLifecycleOptions } from './sessions/sessionLifecycleWork.js';

export interface WorkerOptions {
  pool: Pool;
  store: EventStore;
  logger: Logger;
  projections: readonly Projection[];
  batchSize: number;
  pollIntervalMs: number;
  /** Call recordings: media fetch jobs (pg-boss, schema pgboss) and the retention sweep; off without it. */
  recordings?: RecordingsWorkOptions;
  /** Session lifecycle sweep (idle, abandoned, archived: docs/sessions.md); off without it. */
  sessions?: SessionLifecycleOptions;
  /** Inbound channel messages: turns and reply delivery (pg-boss, schema pgboss); off without it. */
  channels?: ChannelsWorkOptions;
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
  const recordings = options.recordings
    ? createRecordingsWork(
        {
          pool: options.pool,
          store: options.store,
          logger: options.logger,
          batchSize: options.batchSize,
          pollIntervalMs: options.pollIntervalMs,
        },
        options.recordings,
      )
    : null;
  const sessions = options.sessions
    ? createSessionLifecycleWork(
        { pool: options.pool, store: options.store, logger: options.logger, batchSize: options.batchSize },
        options.sessions,
      )
    : null;
  const channels = options.channels
    ? createChannelsWork(
        { pool: options.pool, store: options.store, logger: options.logger },
        options.channels,
      )
    : null;
  return {
    async start() {
      await runner.start();
      await recordings?.start();
      sessions?.start();
      await channels?.start();
      options.logger.info({ projections: options.projections.map((p) => p.name) }, 'worker started');
    },
    async stop() {
      await channels?.stop();
      await sessions?.stop();
      await recordings?.stop();
      await runner.stop();
      options.logger.info('worker stopped');
    },
  };
}
