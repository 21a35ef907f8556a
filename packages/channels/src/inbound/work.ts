import type PgBoss from 'pg-boss';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_SEND_QUEUE,
  type ChannelQueueOptions,
  ensureChannelQueues,
  type InboundJobData,
  type SendJobData,
} from './jobs.js';
import { type InboundWorkerDeps, processInboundJob, processSendJob } from './processor.js';

/**
 * Ensures both channel queues and works them on a started pg-boss: inbound jobs (turns) and send
 * jobs (deliveries, retried with backoff up to `sendRetryLimit`). Returns the pg-boss worker ids.
 */
export async function workChannelQueues(
  boss: PgBoss,
  deps: InboundWorkerDeps,
  options: ChannelQueueOptions & { pollingIntervalSeconds?: number; teamSize?: number },
): Promise<string[]> {
  await ensureChannelQueues(boss, options);
  const polling = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 };
  const ids: string[] = [];
  for (let i = 0; i < (options.teamSize ?? 1); i++) {
    ids.push(
      await boss.work<InboundJobData>(CHANNEL_INBOUND_QUEUE, polling, async (jobs) => {
        for (const job of jobs) {
          await processInboundJob(deps, boss, job.data).catch((err: unknown) => {
            deps.logger.error(
              { err, connectionId: job.data.connectionId, jobId: job.id },
              'inbound channel job failed; pg-boss retries it',
            );
            throw err;
          });
        }
      }),
    );
    ids.push(
      await boss.work<SendJobData>(
        CHANNEL_SEND_QUEUE,
        { ...polling, includeMetadata: true },
        async (jobs) => {
          for (const job of jobs) {
            await processSendJob(deps, job.data, {
              retryCount: job.retryCount,
              retryLimit: options.sendRetryLimit,
            });
          }
        },
      ),
    );
  }
  return ids;
}
