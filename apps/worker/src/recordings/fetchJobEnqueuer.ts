import { DEMO_EVENT_MARK, parseEvent } from '@parley/events';
import type { EventStore, Position, RecordedEvent } from '@parley/eventstore';
import {
  isConnectionError,
  type Logger,
  nullIfQueueMissing,
  type Pool,
  pgBossQueueExists,
} from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { fetchJobId } from './eventIds.js';
import { MEDIA_FETCH_QUEUE, type MediaFetchJobData } from './mediaFetchJob.js';

const MAX_BACKOFF_MS = 10_000;

/** The consumer's name in log_consumer_checkpoints. */
export const MEDIA_FETCH_CONSUMER = 'recording-media-fetch';

async function loadCheckpoint(pool: Pool, name: string): Promise<Position | undefined> {
  const { rows } = await pool.query<{ c: string; p: string }>(
    'select position_commit::text as c, position_prepare::text as p from log_consumer_checkpoints where name = $1',
    [name],
  );
  const row = rows[0];
  return row ? { commit: BigInt(row.c), prepare: BigInt(row.p) } : undefined;
}

async function saveCheckpoint(pool: Pool, name: string, position: Position): Promise<void> {
  await pool.query(
    `insert into log_consumer_checkpoints (name, position_commit, position_prepare) values ($1, $2, $3)
     on conflict (name) do update set position_commit = $2, position_prepare = $3, updated_at = now()`,
    [name, position.commit.toString(), position.prepare.toString()],
  );
}

/**
 * The fetch jobs a RecordingCompleted stands for: one per recording_server file. None for the demo
 * seed's recordings (`metadata.demo`): their stored media is written by the seed, and their files
 * still "being fetched" are a showcase that must stay so, without asking a host that does not exist.
 */
export function fetchJobsOf(event: RecordedEvent): MediaFetchJobData[] {
  if (event.metadata[DEMO_EVENT_MARK] === true) return [];
  const parsed = parseEvent(event);
  if (!parsed.known || parsed.type !== 'RecordingCompleted') return [];
  const d = parsed.data;
  return d.files.flatMap((file) =>
    file.source.kind !== 'recording_server'
      ? []
      : [
          {
            projectId: d.projectId,
            recordingId: d.recordingId,
            sessionId: d.sessionId,
            callId: d.callId,
            objectIndex: file.objectIndex,
            url: file.source.url,
            ...(file.fileName === undefined ? {} : { fileName: file.fileName }),
            ...(file.channel === undefined ? {} : { channel: file.channel }),
            ...(file.recordingType === undefined ? {} : { recordingType: file.recordingType }),
            ...(file.contentType === undefined ? {} : { contentType: file.contentType }),
            ...(file.recordingStartTime === undefined ? {} : { recordingStartTime: file.recordingStartTime }),
            ...(file.recordingEndTime === undefined ? {} : { recordingEndTime: file.recordingEndTime }),
            ...(d.durationSeconds === undefined ? {} : { durationSeconds: d.durationSeconds }),
          },
        ],
  );
}

export interface FetchJobEnqueuer {
  /** Enqueues the jobs of one batch of new RecordingCompleted events; the count of events read. */
  runOnce(): Promise<number>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * A checkpointed consumer of the log: for every RecordingCompleted after its checkpoint it sends
 * one pg-boss job per recording_server file (the job id is derived from the file, so sending again
 * after a crash before the checkpoint moved inserts nothing), then moves the checkpoint. The queue
 * must exist (workMediaFetchQueue or ensureMediaFetchQueue creates it).
 */
export function createFetchJobEnqueuer(options: {
  pool: Pool;
  store: EventStore;
  boss: PgBoss;
  logger: Logger;
  batchSize: number;
  pollIntervalMs: number;
}): FetchJobEnqueuer {
  const { pool, store, boss, logger } = options;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;

  async function runOnce(): Promise<number> {
    const after = await loadCheckpoint(pool, MEDIA_FETCH_CONSUMER);
    const events = await store.readAll({
      ...(after === undefined ? {} : { after }),
      maxCount: options.batchSize,
      eventTypes: ['RecordingCompleted'],
    });
    for (const event of events) {
      for (const job of fetchJobsOf(event)) {
        const id = fetchJobId(job.projectId, job.recordingId, job.objectIndex);
        // null: not inserted. Fine when the job exists already (sent before the checkpoint moved);
        // otherwise the queue is missing and the checkpoint must not move past this event.
        if ((await nullIfQueueMissing(boss.send(MEDIA_FETCH_QUEUE, job, { id }))) === null) {
          if (!(await pgBossQueueExists(pool, MEDIA_FETCH_QUEUE))) {
            throw new Error(`media fetch job not enqueued: does the ${MEDIA_FETCH_QUEUE} queue exist?`);
          }
        }
      }
    }
    const last = events.at(-1);
    if (last) await saveCheckpoint(pool, MEDIA_FETCH_CONSUMER, last.position);
    return events.length;
  }

  // Consecutive failures: the retry waits twice as long after each (up to MAX_BACKOFF_MS), so an
  // outage of the database costs a few attempts, not one per poll interval.
  let failures = 0;
  const tick = async () => {
    let delay = options.pollIntervalMs;
    try {
      // A full batch: there is more; go on at once.
      if ((await runOnce()) === options.batchSize) delay = 0;
      failures = 0;
    } catch (err) {
      delay = Math.min(options.pollIntervalMs * 2 ** failures, MAX_BACKOFF_MS);
      failures += 1;
      // A dependency outage is reported once, at warn, then quietly until it is over.
      if (!isConnectionError(err)) logger.error({ err }, 'enqueuing media fetch jobs failed; retrying');
      else if (failures === 1)
        logger.warn({ err }, 'enqueuing media fetch jobs paused: the database is unavailable');
      else logger.debug({ err, failures, retryInMs: delay }, 'enqueuing media fetch jobs still paused');
    }
    if (!stopped) {
      timer = setTimeout(() => {
        running = tick();
      }, delay);
    }
  };

  return {
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      running = tick();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
