import {
  ensureToolResumeQueue,
  processToolResumeJob,
  sweepExpiredSuspensions,
  TOOL_RESUME_QUEUE,
  type ToolResumeDeps,
} from '@parley/channels';
import type { PgBoss } from 'pg-boss';

export interface SuspensionWorkOptions {
  /** runtime.resume (@parley/runtime). */
  resume: ToolResumeDeps['resume'];
  /** The suspension store (@parley/runtime createSuspensionStore). */
  suspensions: ToolResumeDeps['suspensions'];
  /** How often the timeout sweep runs (default 5 s). */
  sweepIntervalMs?: number;
}

export interface SuspensionWorkers {
  ids: string[];
  wake(): void;
  stop(): void;
}

/**
 * Suspended tools on the worker's pg-boss (docs/agents.md "Suspended tools"): the `tool-resume`
 * queue (jobs from the callback route and from the sweep) and the timeout sweep.
 */
export async function workSuspensions(
  boss: PgBoss,
  deps: ToolResumeDeps,
  options: { sweepIntervalMs?: number; pollingIntervalSeconds?: number },
): Promise<SuspensionWorkers> {
  await ensureToolResumeQueue(boss);
  const self = { id: '' };
  self.id = await boss.work(
    TOOL_RESUME_QUEUE,
    { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2, batchSize: 1 },
    async (jobs) => {
      for (const job of jobs) {
        await processToolResumeJob(deps, job.data).catch((err: unknown) => {
          deps.logger.error({ err, jobId: job.id }, 'tool resume job failed; pg-boss retries it');
          throw err;
        });
      }
      if (jobs.length > 0 && self.id !== '') boss.notifyWorker(self.id);
    },
  );
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweepExpiredSuspensions(deps)
      .then((queued) => {
        if (queued > 0) boss.notifyWorker(self.id);
      })
      .catch((err: unknown) =>
        deps.logger.warn({ err }, 'suspension timeout sweep failed; next tick retries'),
      )
      .finally(() => {
        sweeping = false;
      });
  }, options.sweepIntervalMs ?? 5_000);
  sweep.unref();
  return { ids: [self.id], wake: () => boss.notifyWorker(self.id), stop: () => clearInterval(sweep) };
}
