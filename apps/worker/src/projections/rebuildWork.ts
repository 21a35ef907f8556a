import type { EventStore } from '@parley/eventstore';
import { ensureQueue, type Logger, type Pool, parseJobPayload, withTransaction } from '@parley/platform';
import {
  activeRebuilds,
  markRebuildCompleted,
  markRebuildFailed,
  markRebuildQueued,
  markRebuildRunning,
  PROJECTION_REBUILD_QUEUE,
  type Projection,
  ProjectionBusyError,
  projectionRebuildJob,
  type RebuildJobData,
  type RebuildProgress,
  rebuildProjection,
  recordRebuildProgress,
  sendRebuildJob,
} from '@parley/projection-runner';
import type { PgBoss } from 'pg-boss';
import { createJobQueue, PG_BOSS_SCHEMA } from '../recordings/jobQueue.js';
import { throttledWriter } from './rebuildProgressWriter.js';

export interface ProjectionRebuildWorkOptions {
  /** pg-boss polling of the queue, in seconds (at least 0.5). Default 2. */
  pollingIntervalSeconds?: number;
  /** Another process (a CLI rebuild) holds the projection's rebuild: try again after this long. Default 30. */
  busyRetrySeconds?: number;
  /** Least time between two progress writes of a rebuild's row. Default 500 ms. */
  progressIntervalMs?: number;
  /** Events per read and per transaction while replaying (rebuildProjection's; default 10,000). */
  batchSize?: number;
}

export interface ProjectionRebuildWork {
  start(): Promise<void>;
  /** Stops a rebuild in flight between batches (it goes back to queued and resumes later), then stops. */
  stop(): Promise<void>;
}

/**
 * A job runs for as long as its rebuild (pg-boss fails a job whose handler outlives expireIn; the
 * limit is under 24 h). Retries cover only a handler that threw (the database failed while marking).
 */
const QUEUE_POLICY = { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 23 * 3600 };

/**
 * The worker's side of API-requested rebuilds (docs/projections.md): queue `projection-rebuild`,
 * created at start (until then the API answers 503 QUEUE_UNAVAILABLE). A job runs rebuildProjection
 * for its rebuild, writing progress to its `projection_rebuilds` row, and marks it completed (with
 * the generation now live) or failed (with the error). On stop the rebuild is aborted between
 * batches, its row goes back to queued and a new job is queued in the same transaction: the
 * generation being built is kept, and the next run (this worker restarted, or another) resumes it
 * from its checkpoint, so no work is lost. A rebuild held by another process (ProjectionBusyError,
 * e.g. `parley projections rebuild`) is queued again for later, not failed. At start, a queued or
 * running rebuild without a waiting job (its worker died) gets one.
 */
export function createProjectionRebuildWork(
  base: { pool: Pool; store: EventStore; logger: Logger; projections: readonly Projection[] },
  options: ProjectionRebuildWorkOptions = {},
): ProjectionRebuildWork {
  const logger = base.logger.child({ subsystem: 'projection-rebuilds' });
  const busyRetrySeconds = options.busyRetrySeconds ?? 30;
  const progressIntervalMs = options.progressIntervalMs ?? 500;
  let boss: PgBoss | null = null;
  let stopping = new AbortController();

  /** Back to queued (only when it was) and a new job, in one transaction. */
  const requeue = async (
    data: RebuildJobData,
    startAfter: number,
    previous: 'queued' | 'running',
  ): Promise<void> => {
    await withTransaction(base.pool, async (client) => {
      if (previous === 'queued') await markRebuildQueued(client, data.rebuildId);
      if (boss) await sendRebuildJob(client, boss, data, { startAfter });
    });
  };

  const run = async (data: RebuildJobData): Promise<void> => {
    const { rebuildId } = data;
    const log = logger.child({ projection: data.projection, rebuildId });
    const projection = base.projections.find((p) => p.name === data.projection);
    if (!projection) {
      await markRebuildFailed(base.pool, rebuildId, `no projection named ${data.projection} in this worker`);
      return;
    }
    const previous = await markRebuildRunning(base.pool, rebuildId);
    if (previous === null) return; // ended already (a job sent twice)
    const signal = stopping.signal;
    const progress = throttledWriter(
      (p: RebuildProgress) =>
        recordRebuildProgress(base.pool, rebuildId, {
          generation: p.generation,
          eventsProcessed: p.eventsProcessed,
          eventsTotal: p.eventsBehind === null ? null : p.eventsProcessed + p.eventsBehind,
          eventsPerSecond: p.eventsPerSecond,
        }),
      progressIntervalMs,
      (err) => log.warn({ err }, 'rebuild progress not recorded'),
    );
    let building: number | null = null;
    log.info('rebuild started');
    try {
      const result = await rebuildProjection({
        pool: base.pool,
        store: base.store,
        projection,
        logger: log,
        signal,
        progressIntervalMs,
        onProgress: (p) => {
          building = p.generation;
          progress.push(p);
        },
        ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      });
      await progress.close();
      await markRebuildCompleted(base.pool, rebuildId, {
        generation: result.generation,
        eventsProcessed: result.eventsProcessed,
        eventsPerSecond: result.eventsPerSecond,
      });
      log.info(
        { generation: result.generation, events: result.eventsProcessed, durationMs: result.durationMs },
        'rebuild completed',
      );
    } catch (err) {
      await progress.close();
      if (err instanceof ProjectionBusyError) {
        // A CLI rebuild, or this rebuild running on another worker: leave its row as it was.
        log.info({ retryInSeconds: busyRetrySeconds }, 'projection busy; rebuild queued again for later');
        await requeue(data, busyRetrySeconds, previous);
        return;
      }
      if (signal.aborted) {
        log.info('worker stopping; rebuild queued again, it resumes from its checkpoint');
        await requeue(data, 0, 'queued');
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      log.error({ err }, 'rebuild failed');
      await markRebuildFailed(base.pool, rebuildId, message, building);
    }
  };

  /** Queued or running rebuilds without a waiting job: the worker that ran them died. */
  const resumeOrphans = async (started: PgBoss): Promise<void> => {
    for (const rebuild of await activeRebuilds(base.pool)) {
      const { rows } = await base.pool.query<{ ok: boolean }>(
        `select exists (select 1 from ${PG_BOSS_SCHEMA}.job
                         where name = $1 and data->>'rebuildId' = $2 and state in ('created', 'retry')) as ok`,
        [PROJECTION_REBUILD_QUEUE, rebuild.id],
      );
      if (rows[0]?.ok) continue;
      const client = await base.pool.connect();
      try {
        await sendRebuildJob(client, started, { rebuildId: rebuild.id, projection: rebuild.projection });
      } finally {
        client.release();
      }
      logger.info(
        { projection: rebuild.projection, rebuildId: rebuild.id },
        'rebuild without a job: queued again',
      );
    }
  };

  return {
    async start() {
      stopping = new AbortController();
      const started = createJobQueue(base.pool);
      boss = started;
      started.on('error', (err) => logger.error({ err }, 'projection rebuild queue error'));
      await started.start();
      await ensureQueue(started, PROJECTION_REBUILD_QUEUE, QUEUE_POLICY);
      await resumeOrphans(started);
      await started.work(
        PROJECTION_REBUILD_QUEUE,
        { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 },
        async (jobs) => {
          for (const job of jobs) await run(parseJobPayload(projectionRebuildJob, job, logger));
        },
      );
    },
    async stop() {
      stopping.abort();
      // The rebuild in flight stops at its next batch (an index build or the swap finish first).
      await boss?.stop({ graceful: true, timeout: 30_000 });
      boss = null;
    },
  };
}
