import { defineJob, ensureQueue } from '@parley/platform';
import type { PgBoss } from 'pg-boss';
import { z } from 'zod';
import { derivedUuid } from '../inbound/ids.js';

/**
 * Suspended tools (docs/agents.md "Suspended tools"): one job per resumption, queued by the
 * suspension callback route (the external system's signed result) or by the worker's timeout sweep,
 * worked by the worker: resume the turn, deliver its reply where the turn came from.
 */
export const TOOL_RESUME_QUEUE = 'tool-resume';

/** The job's data, parsed on receipt (it crossed the database). */
export const toolResumeJobSchema = z.object({
  suspensionId: z.string().min(1),
  outcome: z.enum(['completed', 'timed_out']),
  /** The callback's JSON body (completed only). */
  result: z.unknown().optional(),
});
export type ToolResumeJobData = z.infer<typeof toolResumeJobSchema>;
export const toolResumeJob = defineJob(TOOL_RESUME_QUEUE, toolResumeJobSchema);

/** The job id: one resumption per suspension, however often it is queued. */
export const toolResumeJobId = (suspensionId: string): string => derivedUuid('tool-resume', suspensionId);

/** Creates (or updates) the resume queue: retried with backoff (a callback that came before its turn was recorded). */
export async function ensureToolResumeQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, TOOL_RESUME_QUEUE, {
    retryLimit: 8,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: 5 * 60,
  });
}
