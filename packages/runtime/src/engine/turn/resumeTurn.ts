import type { ActionSet, ReplyMedia } from '@parley/events';
import { ParleyError } from '@parley/platform';
import { AgentNotFoundError } from '../../errors.js';
import type { LlmMessage, ToolCall } from '../../providers/types.js';
import type { SuspensionRecord } from '../../suspensions/suspensionStore.js';
import { loadSession } from '../session/loadSession.js';
import { historyForModel, type PendingSuspension, type SessionView } from '../session/sessionView.js';
import type { ResumeRequest, ResumeResult } from '../types.js';
import type { Ending, LoopState } from './agentLoop.js';
import { setUpAgent } from './agentSetup.js';
import { type Answer, answerLocally } from './answerTurn.js';
import { outputGuardrails } from './guardrailStage.js';
import { recordAfter } from './recordTurn.js';
import { loadProject, type RuntimeParts } from './runtimeParts.js';
import { cut } from './traceLog.js';
import type { TurnContext } from './turnContext.js';
import { createTurnContext, loopDepsOf, toolTurnOf } from './turnContextOf.js';
import { turnFacts } from './turnFacts.js';
import { resultOf } from './turnResult.js';

/** The callback came before the suspended turn was recorded (or names a turn that never was): retry later. */
export class SuspensionNotRecordedError extends ParleyError {
  constructor(readonly suspensionId: string) {
    super('SUSPENSION_NOT_RECORDED', 503, 'the suspended turn is not recorded yet');
    this.name = 'SuspensionNotRecordedError';
  }
}

/** What a tool that never called back tells the user, unless the tool says otherwise. */
export const DEFAULT_TIMEOUT_REPLY = "Sorry, I didn't get an answer in time. Please try again later.";
/** The largest callback result the model reads, in characters of JSON. */
export const MAX_CALLBACK_RESULT_CHARS = 64 * 1024;

/** The callback's body as the suspended tool's result: `{ "error": "<code>" }` fails the tool. */
interface CallbackResult {
  ok: boolean;
  content: string;
}

function resultContent(result: unknown): CallbackResult {
  const text = JSON.stringify(result ?? {});
  const failed =
    typeof result === 'object' &&
    result !== null &&
    typeof (result as { error?: unknown }).error === 'string';
  return {
    ok: !failed,
    content: text.length <= MAX_CALLBACK_RESULT_CHARS ? text : JSON.stringify({ error: 'result_too_large' }),
  };
}

interface SavedEffects {
  actionSet?: ActionSet;
  media?: ReplyMedia[];
  ending?: Ending;
}

/** A fixed reply that is not the model's (a timeout's). */
const fixedReply = (agentName: string, text: string): Answer => ({
  agentName,
  kind: 'reply',
  text,
  usedFallback: true,
  isLlmGenerated: false,
  failure: null,
  suspension: null,
  remote: null,
});

/** The conversation where the turn stopped: history, the user's message, the tool calls and every result. */
function resumedMessages(view: SessionView, pending: PendingSuspension, resultText: string): LlmMessage[] {
  const user = view.history.find((h) => h.messageId === pending.userMessageId)?.message;
  return [
    ...historyForModel(view, pending.userMessageId),
    ...(user === undefined ? [] : [user]),
    {
      role: 'assistant',
      content: pending.pending.assistantText,
      toolCalls: pending.pending.toolCalls as ToolCall[],
    },
    ...pending.pending.results.map((r) => ({
      role: 'tool' as const,
      content: r.content,
      toolCallId: r.toolCallId,
    })),
    { role: 'tool', content: resultText, toolCallId: pending.toolCallId },
  ];
}

/** The suspended call's `tool_result`, in the resumed turn's trace (the call itself is in the suspended one's). */
function traceResult(
  ctx: TurnContext,
  pending: PendingSuspension,
  callback: CallbackResult | null,
  at: Date,
): void {
  ctx.trace.add({
    eventType: 'tool_result',
    name: pending.toolName,
    status: callback?.ok === true ? 'ok' : 'error',
    startedAt: at.toISOString(),
    durationMs: Math.max(0, at.getTime() - Date.parse(pending.suspendedAt)),
    attributes: {
      toolCallId: pending.toolCallId,
      suspensionId: pending.suspensionId,
      suspendedSpanId: pending.spanId,
      ...(callback === null
        ? { code: 'timeout' }
        : callback.ok
          ? { result: cut(callback.content) }
          : { code: 'tool_error' }),
    },
  });
}

/** The session and its pending suspension; null when a timed-out suspension's turn was never recorded. */
async function suspensionOf(
  parts: RuntimeParts,
  req: ResumeRequest,
): Promise<{ record: SuspensionRecord; view: SessionView; pending: PendingSuspension } | null> {
  const record = await parts.suspensions?.get(req.suspensionId);
  if (record === undefined || record === null) throw new SuspensionNotRecordedError(req.suspensionId);
  const view = await loadSession(parts.store, record.sessionId);
  const pending = view?.suspensions.get(req.suspensionId);
  if (view === null || pending === undefined) {
    if (req.outcome === 'timed_out') return null;
    throw new SuspensionNotRecordedError(req.suspensionId);
  }
  return { record, view, pending };
}

/**
 * A suspended turn resumed: the callback's result (or the timeout) becomes the suspended call's tool
 * result, and the turn goes on where it stopped (its history, its assistant message, the other
 * calls' results, its model-call count) with the agent that was answering, then records the reply
 * under the id reserved for it, ToolCallResumed, and any end. A timeout answers the tool's
 * `timeoutReply` without a model call. Null: nothing to answer (the session ended meanwhile, the
 * agent is gone, or a timed-out suspension whose turn was never recorded); the suspension is
 * closed either way.
 */
export async function resumeNow(parts: RuntimeParts, req: ResumeRequest): Promise<ResumeResult | null> {
  const t0 = performance.now();
  const found = await suspensionOf(parts, req);
  if (found === null) return null;
  const { record, view, pending } = found;
  const project = await loadProject(parts, record.projectId, record.tenantId);
  const agent = await parts.agents.resolve(record.projectId, pending.agentName).catch((err: unknown) => {
    if (err instanceof AgentNotFoundError) return null;
    throw err;
  });
  const ctx = createTurnContext(
    parts,
    {
      sessionId: record.sessionId,
      projectId: record.projectId,
      tenantId: record.tenantId,
      session: {
        channel: view.channel,
        channelType: view.channelType,
        environment: view.environment,
        channelUserId: view.channelUserId,
      },
      storePayloads: project.storePayloads,
      userMessageId: pending.userMessageId,
      replyMessageId: pending.replyMessageId,
      messageMetadata: undefined,
      origin: record.origin,
      stream: false,
    },
    {},
  );
  const deps = loopDepsOf(parts, ctx);
  const startedAt = parts.now();
  const callback = req.outcome === 'completed' ? resultContent(req.result) : null;
  traceResult(ctx, pending, callback, startedAt);
  const common = {
    ctx,
    startedAt,
    inReplyTo: pending.userMessageId,
    resumed: {
      ...ctx.scope,
      suspensionId: pending.suspensionId,
      outcome: req.outcome,
      resumedAt: startedAt.toISOString(),
    },
  } as const;
  if (view.endedStatus !== null || agent === null) {
    const closed = { ...fixedReply(pending.agentName, ''), kind: 'suspended' as const };
    const state = { media: [], ending: null, handoffs: [], llmCalls: 0, agentName: pending.agentName };
    await recordAfter(
      parts,
      ctx,
      turnFacts({ ...common, answer: closed, state, durationMs: performance.now() - t0 }),
      view.revision,
    );
    return null;
  }
  const saved = (pending.effects ?? {}) as SavedEffects;
  const state: LoopState = {
    setup: await setUpAgent(deps, ctx, agent),
    messages: resumedMessages(view, pending, callback?.content ?? JSON.stringify({ error: 'timeout' })),
    llmCalls: pending.pending.llmCalls,
    ...(saved.actionSet === undefined ? {} : { actionSet: saved.actionSet }),
    media: saved.media ?? [],
    ending: saved.ending ?? null,
    handoffs: [],
  };
  const timeoutReply = agent.tools.find((t) => t.name === pending.toolName)?.suspend?.timeoutReply;
  const answer: Answer =
    callback === null
      ? fixedReply(
          agent.name,
          (await outputGuardrails(ctx, deps, agent, timeoutReply ?? DEFAULT_TIMEOUT_REPLY)).text,
        )
      : await answerLocally(parts, ctx, deps, state, toolTurnOf(ctx), { resumed: true });
  const facts = turnFacts({
    ...common,
    answer,
    state: { ...state, agentName: state.setup.agent.name },
    durationMs: performance.now() - t0,
  });
  const endedByOther = await recordAfter(parts, ctx, facts, view.revision);
  const result = resultOf({ ctx, answer, state, facts, created: false, endedByOther, t0, pendingReply: '' });
  return {
    sessionId: record.sessionId,
    projectId: record.projectId,
    tenantId: record.tenantId,
    origin: record.origin,
    result,
  };
}
