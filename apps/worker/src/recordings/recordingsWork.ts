import type { EventStore } from '@parley/eventstore';
import type { MediaStorage } from '@parley/media';
import type { Logger, Pool } from '@parley/platform';
import type { TelephonyAccountSecrets } from '@parley/telephony';
import type { PgBoss } from 'pg-boss';
import { createFetchJobEnqueuer } from './fetchJobEnqueuer.js';
import { createJobQueue } from './jobQueue.js';
import { DEFAULT_MEDIA_FETCH_OPTIONS, type MediaFetchOptions, workMediaFetchQueue } from './mediaFetchJob.js';
import { runRetentionSweep } from './retentionSweep.js';

export interface RecordingsWorkOptions {
  media: MediaStorage;
  /** Telephony accounts of a project with their recording-server credentials (@parley/telephony). */
  accountsOfProject(projectId: string): Promise<TelephonyAccountSecrets[]>;
  /** Retries, backoff, expiry and timeout of media fetch jobs; defaults DEFAULT_MEDIA_FETCH_OPTIONS. */
  fetch?: Partial<MediaFetchOptions>;
  /** How often the retention sweep runs (RECORDING_RETENTION_SWEEP_INTERVAL_SECONDS). */
  retentionSweepIntervalMs: number;
  /** pg-boss polling of the fetch queue, in seconds (at least 0.5). */
  pollingIntervalSeconds?: number;
}

export interface RecordingsWork {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The worker's recording jobs: the media fetcher (pg-boss) and the retention sweep. */
export function createRecordingsWork(
  base: { pool: Pool; store: EventStore; logger: Logger; batchSize: number; pollIntervalMs: number },
  options: RecordingsWorkOptions,
): RecordingsWork {
  const logger = base.logger.child({ subsystem: 'recordings' });
  let boss: PgBoss | null = null;
  let sweepTimer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> = Promise.resolve();
  let enqueuer: ReturnType<typeof createFetchJobEnqueuer> | null = null;

  const sweep = () => {
    sweeping = runRetentionSweep({ pool: base.pool, store: base.store, media: options.media, logger }).catch(
      (err: unknown) => logger.error({ err }, 'recording retention sweep failed'),
    );
  };

  return {
    async start() {
      boss = createJobQueue(base.pool);
      boss.on('error', (err) => logger.error({ err }, 'job queue error'));
      await boss.start();
      await workMediaFetchQueue(
        boss,
        { store: base.store, media: options.media, accountsOfProject: options.accountsOfProject, logger },
        {
          ...DEFAULT_MEDIA_FETCH_OPTIONS,
          ...options.fetch,
          ...(options.pollingIntervalSeconds === undefined
            ? {}
            : { pollingIntervalSeconds: options.pollingIntervalSeconds }),
        },
      );
      enqueuer = createFetchJobEnqueuer({
        pool: base.pool,
        store: base.store,
        boss,
        logger,
        batchSize: base.batchSize,
        pollIntervalMs: base.pollIntervalMs,
      });
      enqueuer.start();
      sweep();
      sweepTimer = setInterval(sweep, options.retentionSweepIntervalMs);
    },
    async stop() {
      if (sweepTimer) clearInterval(sweepTimer);
      await enqueuer?.stop();
      await sweeping;
      // Lets the job in flight finish (up to 30 s); an unfinished one is retried after it expires.
      await boss?.stop({ graceful: true, timeout: 30_000 });
      boss = null;
    },
  };
}
