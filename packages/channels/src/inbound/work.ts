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
import { DEFAULT_PART_TIMEOUT_SECONDS, releaseExpiredParts } from './parts/partStore.js';
import { type InboundWorkerDeps, processInboundJob, processSendJob } from './processor.js';
import { createWakeRing } from './wakeRing.js';

/**
 * The pg-boss workers of the channel queues, by queue: `wake` skips their polling delay (a job
 * was just queued; pg-boss `notifyWorker`).
 */
export interface ChannelWorkers {
  ids: string[];
  inbound: string[];
  send: string[];
  /**
   * New jobs were queued elsewhere (one NOTIFY each): wakes an idle worker of each queue, the next
   * in turn (those at work fetch again when done).
   */
  wake(): void;
}

/**
 * Ensures both channel queues and works them on a started pg-boss: inbound jobs (turns) and send
 * jobs (deliveries, retried with backoff up to `sendRetryLimit`).
 *
 * pg-boss waits its polling interval after every fetch, even one that found a job: with one job
 * per fetch that caps a worker at one job per interval. So a worker that found jobs wakes itself
 * (no delay while there is work), and an inbound job that queued a reply wakes an idle send
 * worker (the reply does not wait for the next poll). One worker, not all: waking them all made
 * every reply cost a fetch per send worker, all but one of them empty (wakeRing.ts). Jobs queued by other processes (the API's
 * webhooks) wake the workers through CHANNEL_JOBS_NOTIFY_CHANNEL (notifyChannelJob) (`wake`, see apps/worker);
 * polling remains the fallback.
 */
export async function workChannelQueues(
  boss: PgBoss,
  deps: InboundWorkerDeps,
  options: ChannelQueueOptions & {
    pollingIntervalSeconds?: number;
    teamSize?: number;
    /** How often the part timeout sweep runs (default: a quarter of the timeout, 1 to 15 s). */
    partSweepIntervalMs?: number;
  },
): Promise<ChannelWorkers> {
  await ensureChannelQueues(boss, options);
  const polling = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 };
  const inbound: string[] = [];
  const send: string[] = [];
  const inboundRing = createWakeRing((id) => boss.notifyWorker(id));
  const sendRing = createWakeRing((id) => boss.notifyWorker(id));
  for (let i = 0; i < (options.teamSize ?? 1); i++) {
    // The handler learns its own worker id once work() has answered; the first fetch may come sooner.
    const self = { id: '' };
    self.id = await boss.work(CHANNEL_INBOUND_QUEUE, polling, (jobs) =>
      inboundRing.busy(
        () => self.id,
        async () => {
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
          // Its reply's send job (queued with the turn's record) needs one send worker's fetch.
          if (jobs.length > 0) sendRing.wakeOne();
          if (jobs.length > 0 && self.id !== '') boss.notifyWorker(self.id);
        },
      ),
    );
    inbound.push(self.id);
    inboundRing.add(self.id);
    const sender = { id: '' };
    sender.id = await boss.work(CHANNEL_SEND_QUEUE, { ...polling, includeMetadata: true }, (jobs) =>
      sendRing.busy(
        () => sender.id,
        async () => {
          for (const job of jobs) {
            await processSendJob(deps, parseJobPayload(channelSendJob, job, deps.logger), {
              retryCount: job.retryCount,
              retryLimit: options.sendRetryLimit,
            });
          }
          if (jobs.length > 0 && sender.id !== '') boss.notifyWorker(sender.id);
        },
      ),
    );
    send.push(sender.id);
    sendRing.add(sender.id);
  }
  const sweep = startPartSweep(boss, deps, options);
  boss.once('stopped', () => clearInterval(sweep));
  return {
    ids: [...inbound, ...send],
    inbound,
    send,
    wake: () => {
      inboundRing.wakeOne();
      sendRing.wakeOne();
    },
  };
}

/**
 * The part timeout sweep (inbound/parts): every `partSweepIntervalMs` (default a quarter of the
 * timeout, at most 15 s), incomplete multipart messages past CHANNEL_MESSAGE_PART_TIMEOUT_SECONDS
 * are released as they are. Every worker process sweeps; the reference lock makes each release once.
 */
function startPartSweep(
  boss: PgBoss,
  deps: InboundWorkerDeps,
  options: ChannelQueueOptions & { partSweepIntervalMs?: number },
): NodeJS.Timeout {
  let sweeping = false;
  const timeoutSeconds = options.partTimeoutSeconds ?? DEFAULT_PART_TIMEOUT_SECONDS;
  const interval =
    options.partSweepIntervalMs ?? Math.min(15_000, Math.max(1_000, (timeoutSeconds * 1000) / 4));
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    releaseExpiredParts({
      pool: deps.pool,
      boss,
      logger: deps.logger,
      timeoutSeconds,
      ...(deps.now === undefined ? {} : { now: deps.now }),
    })
      .catch((err: unknown) => deps.logger.warn({ err }, 'message part sweep failed; next tick retries'))
      .finally(() => {
        sweeping = false;
      });
  }, interval);
  sweep.unref();
  return sweep;
}
