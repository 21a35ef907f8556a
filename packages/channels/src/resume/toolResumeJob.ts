import { isParleyError, parseJobPayload } from '@parley/platform';
import { notifyChannelJob } from '../inbound/jobs.js';
import { FINAL_TURN_CODES } from '../inbound/processor.js';
import type { ClaimRefusal } from './claimRefusal.js';
import { deliverResumedReply, type ResumeDeliveryDeps, type ResumedTurn } from './resumeDelivery.js';
import { TOOL_RESUME_QUEUE, type ToolResumeJobData, toolResumeJob, toolResumeJobId } from './resumeJobs.js';

/** The runtime's resumed turn, as much of it as delivery needs (@parley/runtime ResumeResult). */
export interface ResumedTurnResult {
  sessionId: string;
  origin: Record<string, unknown> | null;
  result: {
    reply: {
      messageId: string;
      text: string;
      actionSet?: Extract<ResumedTurn, { kind: 'replied' }>['actionSet'];
      media?: Array<{ url: string; mimeType: string; name?: string; caption?: string }>;
      usedFallback: boolean;
      isLlmGenerated: boolean;
    };
    suspended: null | { suspensionId: string };
    llmCalls: number;
    ended: null | { status: string };
  };
}

/** What the resume job needs beyond delivery: the runtime's resume and the suspension store. */
export interface ToolResumeDeps extends ResumeDeliveryDeps {
  /** runtime.resume (@parley/runtime): null when there is nothing to deliver. */
  resume(req: ToolResumeJobData): Promise<ResumedTurnResult | null>;
  suspensions: {
    get(id: string): Promise<{ sessionId: string; origin: Record<string, unknown> | null } | null>;
    expired(limit: number): Promise<string[]>;
    claim(
      id: string,
      to: 'resumed' | 'timed_out',
      run?: (client: import('@parley/platform').PoolClient) => Promise<void>,
    ): Promise<{ ok: true } | { ok: false; reason: ClaimRefusal }>;
  };
}

/** Codes of runtime errors after which the resumed turn has no reply (the model or the remote agent failed): the caller hears `failed`. */
const FINAL_RESUME_CODES = [...FINAL_TURN_CODES, 'REMOTE_AGENT_FAILED'];

/**
 * One `tool-resume` job: the runtime resumes the suspended turn, then its reply is delivered where
 * the turn came from (deliverResumedReply). A turn that suspends again waits for its own callback.
 * A failure a retry cannot cure is delivered as a failed turn; any other error fails the job and
 * pg-boss retries it (SuspensionNotRecordedError: the callback came before the turn was recorded).
 */
export async function processToolResumeJob(
  deps: ToolResumeDeps,
  data: unknown,
): Promise<'delivered' | 'nothing' | 'failed'> {
  const job = parseJobPayload(toolResumeJob, { data }, deps.logger);
  let resumed: ResumedTurnResult | null;
  try {
    resumed = await deps.resume(job);
  } catch (err) {
    if (!isParleyError(err, ...FINAL_RESUME_CODES)) throw err;
    const record = await deps.suspensions.get(job.suspensionId);
    deps.logger.warn({ error: err.name, suspensionId: job.suspensionId }, 'resumed turn failed');
    if (record !== null)
      await deliverResumedReply(deps, record.origin, { kind: 'failed', sessionId: record.sessionId });
    return 'failed';
  }
  if (resumed === null || resumed.result.suspended !== null) return 'nothing';
  const { reply } = resumed.result;
  const outcome = await deliverResumedReply(deps, resumed.origin, {
    kind: 'replied',
    sessionId: resumed.sessionId,
    replyMessageId: reply.messageId,
    text: reply.text,
    ...(reply.actionSet === undefined ? {} : { actionSet: reply.actionSet }),
    ...(reply.media === undefined ? {} : { media: reply.media }),
    usedFallback: reply.usedFallback,
    isLlmGenerated: reply.isLlmGenerated,
    llmCalls: resumed.result.llmCalls,
    ended: resumed.result.ended !== null,
  });
  return outcome === 'queued' ? 'delivered' : 'nothing';
}

/**
 * The timeout sweep: pending suspensions past their deadline are claimed `timed_out` and their
 * resumption queued (the runtime answers the tool's timeout reply). Answers how many it queued.
 */
export async function sweepExpiredSuspensions(
  deps: Pick<ToolResumeDeps, 'suspensions' | 'boss'>,
  limit = 100,
): Promise<number> {
  let queued = 0;
  for (const suspensionId of await deps.suspensions.expired(limit)) {
    const job: ToolResumeJobData = { suspensionId, outcome: 'timed_out' };
    const claimed = await deps.suspensions.claim(suspensionId, 'timed_out', async (client) => {
      await deps.boss.send(TOOL_RESUME_QUEUE, job, {
        id: toolResumeJobId(suspensionId),
        db: { executeSql: (text, values) => client.query(text, values) },
      });
      await notifyChannelJob(client, TOOL_RESUME_QUEUE);
    });
    if (claimed.ok) queued += 1;
  }
  return queued;
}
