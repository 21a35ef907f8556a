import { ensureQueue, parseJobPayload } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { processHttpAsyncCallbackJob } from './delivery.js';
import {
  HTTP_ASYNC_CALLBACK_QUEUE,
  HTTP_ASYNC_TURN_QUEUE,
  httpAsyncCallbackJob,
  httpAsyncTurnJob,
} from './jobs.js';
import { type HttpAsyncWorkerDeps, processHttpAsyncTurnJob } from './turn.js';

export interface HttpAsyncQueueOptions {
  /** Turn job retries (a turn that failed before it was recorded); the last try's failure is answered as `failed`. */
  turnRetryLimit: number;
  /** A turn job still active after this long is taken to be lost (worker died) and retried. */
  turnExpireInSeconds: number;
  /**
   * Callback attempt job retries: only a crash or an expiry (the attempt's own failures are retried
   * by the schedule, as new jobs).
   */
  callbackRetryLimit: number;
  /** A callback attempt takes at most 10 s; one still active after this long is taken to be lost. */
  callbackExpireInSeconds: number;
}

export const DEFAULT_HTTP_ASYNC_QUEUE_OPTIONS: HttpAsyncQueueOptions = {
  turnRetryLimit: 3,
  turnExpireInSeconds: 5 * 60,
  callbackRetryLimit: 2,
  callbackExpireInSeconds: 60,
};

/** Creates (or updates) the HTTP async queues with their retry policies. */
export async function ensureHttpAsyncQueues(
  boss: PgBoss,
  options: HttpAsyncQueueOptions = DEFAULT_HTTP_ASYNC_QUEUE_OPTIONS,
): Promise<void> {
  await ensureQueue(boss, HTTP_ASYNC_TURN_QUEUE, {
    retryLimit: options.turnRetryLimit,
    retryDelay: 2,
    retryBackoff: true,
    expireInSeconds: options.turnExpireInSeconds,
  });
  await ensureQueue(boss, HTTP_ASYNC_CALLBACK_QUEUE, {
    retryLimit: options.callbackRetryLimit,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: options.callbackExpireInSeconds,
  });
}

/** The pg-boss workers of the HTTP async queues; `wake` skips their polling delay. */
export interface HttpAsyncWorkers {
  ids: string[];
  turn: string[];
  callback: string[];
  /** Wakes every HTTP async worker of this process (new jobs were queued elsewhere). */
  wake(): void;
}

/**
 * Ensures the HTTP async queues and works them on a started pg-boss, as workChannelQueues does the
 * channel queues: a worker that found a job fetches the next at once (pg-boss would otherwise wait
 * its polling interval after every fetch), and a turn wakes the callback workers, so its callbacks
 * leave at once. Jobs queued by other processes (the API's submit, redeliveries) arrive through
 * CHANNEL_JOBS_NOTIFY_CHANNEL (`wake`, see apps/worker); polling remains the fallback, and is what
 * picks up a retry whose start time comes later.
 */
export async function workHttpAsyncQueues(
  boss: PgBoss,
  deps: HttpAsyncWorkerDeps,
  options: {
    teamSize?: number;
    pollingIntervalSeconds?: number;
    queue?: Partial<HttpAsyncQueueOptions>;
  } = {},
): Promise<HttpAsyncWorkers> {
  await ensureHttpAsyncQueues(boss, { ...DEFAULT_HTTP_ASYNC_QUEUE_OPTIONS, ...options.queue });
  const polling = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 };
  const turn: string[] = [];
  const callback: string[] = [];
  const wakeAll = (ids: readonly string[]) => {
    for (const id of ids) boss.notifyWorker(id);
  };
  for (let i = 0; i < (options.teamSize ?? 1); i++) {
    // The handler learns its own worker id once work() has answered; the first fetch may come sooner.
    const self = { id: '' };
    self.id = await boss.work<unknown, void, typeof polling & { includeMetadata: true }>(
      HTTP_ASYNC_TURN_QUEUE,
      { ...polling, includeMetadata: true },
      async (jobs) => {
        for (const job of jobs) {
          const data = parseJobPayload(httpAsyncTurnJob, job, deps.logger);
          await processHttpAsyncTurnJob(deps, boss, data, {
            retryCount: job.retryCount,
            retryLimit: job.retryLimit,
          }).catch((err: unknown) => {
            deps.logger.error(
              { err, subscriptionId: data.subscriptionId, messageId: data.messageId, jobId: job.id },
              'http async turn job failed; pg-boss retries it',
            );
            throw err;
          });
        }
        wakeAll(callback);
        if (jobs.length > 0 && self.id !== '') boss.notifyWorker(self.id);
      },
    );
    turn.push(self.id);
    const sender = { id: '' };
    sender.id = await boss.work(HTTP_ASYNC_CALLBACK_QUEUE, polling, async (jobs) => {
      for (const job of jobs) {
        const data = parseJobPayload(httpAsyncCallbackJob, job, deps.logger);
        await processHttpAsyncCallbackJob(deps, boss, data).catch((err: unknown) => {
          deps.logger.error(
            { err, deliveryId: data.deliveryId, attempt: data.attempt, jobId: job.id },
            'http async callback job failed; pg-boss retries it',
          );
          throw err;
        });
      }
      if (jobs.length > 0 && sender.id !== '') boss.notifyWorker(sender.id);
    });
    callback.push(sender.id);
  }
  return {
    ids: [...turn, ...callback],
    turn,
    callback,
    wake: () => wakeAll([...turn, ...callback]),
  };
}
