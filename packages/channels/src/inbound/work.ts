import { parseJobPayload } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_SEND_QUEUE,
  type ChannelQueueOptions,
  channelInboundJob,
  channelSendJob,
  ensureChannelQueues,
} from './jobs.js';
import { type InboundWorkerDeps, processInboundJob, processSendJob } from './processor.js';

/**
 * The pg-boss workers of the channel queues, by queue: `wake` skips their polling delay (a job
 * was just queued; pg-boss `notifyWorker`).
 */
export interface ChannelWorkers {
  ids: string[];
  inbound: string[];
  send: string[];
  /** Wakes every channel worker of this process (new jobs were queued elsewhere). */
  wake(): void;
}

/**
 * Ensures both channel queues and works them on a started pg-boss: inbound jobs (turns) and send
 * jobs (deliveries, retried with backoff up to `sendRetryLimit`).
 *
 * pg-boss waits its polling interval after every fetch, even one that found a job: with one job
 * per fetch that caps a worker at one job per interval. So a worker that found jobs wakes itself
 * (no delay while there is work), and an inbound job that queued a reply wakes the send workers
 * (the reply does not wait for their next poll). Jobs queued by other processes (the API's
 * webhooks) wake the workers through CHANNEL_JOBS_NOTIFY_CHANNEL (notifyChannelJob) (`wake`, see apps/worker);
 * polling remains the fallback.
 */
export async function workChannelQueues(
  boss: PgBoss,
  deps: InboundWorkerDeps,
  options: ChannelQueueOptions & { pollingIntervalSeconds?: number; teamSize?: number },
): Promise<ChannelWorkers> {
  await ensureChannelQueues(boss, options);
  const polling = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 };
  const inbound: string[] = [];
  const send: string[] = [];
  const wakeAll = (ids: readonly string[]) => {
    for (const id of ids) boss.notifyWorker(id);
  };
  for (let i = 0; i < (options.teamSize ?? 1); i++) {
    // The handler learns its own worker id once work() has answered; the first fetch may come sooner.
    const self = { id: '' };
    self.id = await boss.work(CHANNEL_INBOUND_QUEUE, polling, async (jobs) => {
      for (const job of jobs) {
        const data = parseJobPayload(channelInboundJob, job, deps.logger);
        await processInboundJob(deps, boss, data).catch((err: unknown) => {
          deps.logger.error(
            { err, connectionId: data.connectionId, jobId: job.id },
            'inbound channel job failed; pg-boss retries it',
          );
          throw err;
        });
      }
      wakeAll(send);
      if (jobs.length > 0 && self.id !== '') boss.notifyWorker(self.id);
    });
    inbound.push(self.id);
    const sender = { id: '' };
    sender.id = await boss.work(CHANNEL_SEND_QUEUE, { ...polling, includeMetadata: true }, async (jobs) => {
      for (const job of jobs) {
        await processSendJob(deps, parseJobPayload(channelSendJob, job, deps.logger), {
          retryCount: job.retryCount,
          retryLimit: options.sendRetryLimit,
        });
      }
      if (jobs.length > 0 && sender.id !== '') boss.notifyWorker(sender.id);
    });
    send.push(sender.id);
  }
  return {
    ids: [...inbound, ...send],
    inbound,
    send,
    wake: () => wakeAll([...inbound, ...send]),
  };
}
