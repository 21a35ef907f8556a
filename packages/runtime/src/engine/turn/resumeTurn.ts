import type { ActionSet, ReplyMedia } from '@parley/events';
import { ParleyError } from '@parley/platform';
import { AgentNotFoundError } from '../../errors.js';
import type { ToolCall } from '../../providers/types.js';
import { newMessageId } from '../ids.js';
import { loadSession } from '../session/loadSession.js';
import { historyForModel, type PendingSuspension } from '../session/sessionView.js';
import type { ResumeRequest, ResumeResult } from '../types.js';
import type { Ending, LoopState } from './agentLoop.js';
import { setUpAgent } from './agentSetup.js';
import { type Answer, answerLocally } from './answerTurn.js';
import { outputGuardrails } from './guardrailStage.js';
import { recordAfter } from './runTurn.js';
import { loadProject, type RuntimeParts } from './runtimeParts.js';
import { cut } from './traceLog.js';
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
function resultContent(result: unknown): { ok: boolean; content: string } {
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

/**
 * A suspended turn resumed: the callback's result (or the timeout) becomes the suspended call's tool
 * result, and the turn goes on where it stopped (its history, its assistant message, the other
 * calls' results, its model-call count) with the agent that was answering, then records the reply
 * under the id reserved for it, ToolCallResumed, and any end. A timeout answers the tool's
 * `timeoutReply` without a model call. Null: nothing to answer (the session ended meanwhile, or a
 * timed-out suspension whose turn was never recorded); the suspension is closed either way.
 */
export async function resumeNow(parts: RuntimeParts, req: ResumeRequest): Promise<ResumeResult | null> {
  const t0 = performance.now();
  const record = await parts.suspensions?.get(req.suspensionId);
  if (record === undefined || record === null) throw new SuspensionNotRecordedError(req.suspensionId);
  const view = await loadSession(parts.store, record.sessionId);
  const pending: PendingSuspension | undefined = view?.suspensions.get(req.suspensionId);
  if (view === null || pending === undefined) {
    if (req.outcome === 'timed_out') return null;
    throw new SuspensionNotRecordedError(req.suspensionId);
  }
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
  const toolSpan = pending.spanId;
  ctx.trace.add({
    eventType: 'tool_result',
    name: pending.toolName,
    status: callback?.ok === true ? 'ok' : 'error',
    startedAt: startedAt.toISOString(),
    durationMs: Math.max(0, startedAt.getTime() - Date.parse(pending.suspendedAt)),
    attributes: {
      toolCallId: pending.toolCallId,
      suspensionId: pending.suspensionId,
      suspendedSpanId: toolSpan,
      ...(callback === null
        ? { code: 'timeout' }
        : callback.ok
          ? { result: cut(callback.content) }
          : { code: 'tool_error' }),
    },
  });
  const saved = (pending.effects ?? {}) as SavedEffects;
  const resumed = {
    ...ctx.scope,
    suspensionId: pending.suspensionId,
    outcome: req.outcome,
    resumedAt: startedAt.toISOString(),
  } as const;
  if (view.endedStatus !== null || agent === null) {
    const facts = turnFacts({
      ctx,
      answer: {
        agentName: pending.agentName,
        kind: 'suspended',
        text: '',
        usedFallback: false,
        isLlmGenerated: false,
        failure: null,
        suspension: null,
        remote: null,
      },
      state: { media: [], ending: null, handoffs: [], llmCalls: 0, agentName: pending.agentName },
      startedAt,
      durationMs: performance.now() - t0,
      inReplyTo: pending.userMessageId,
      resumed,
    });
    await recordAfter(parts, ctx, facts, view.revision);
    return null;
  }
  const setup = await setUpAgent(deps, ctx, agent);
  const history = historyForModel(view, pending.userMessageId);
  const user = view.history.find((h) => h.messageId === pending.userMessageId)?.message;
  const state: LoopState = {
    setup,
    messages: [
      ...history,
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
      {
        role: 'tool',
        content: callback?.content ?? JSON.stringify({ error: 'timeout' }),
        toolCallId: pending.toolCallId,
      },
    ],
    llmCalls: pending.pending.llmCalls,
    ...(saved.actionSet === undefined ? {} : { actionSet: saved.actionSet }),
    media: saved.media ?? [],
    ending: saved.ending ?? null,
    handoffs: [],
  };
  let answer: Answer;
  if (callback === null) {
    const tool = agent.tools.find((t) => t.name === pending.toolName);
    const pass = await outputGuardrails(
      ctx,
      deps,
      agent,
      tool?.suspend?.timeoutReply ?? DEFAULT_TIMEOUT_REPLY,
    );
    answer = {
      agentName: agent.name,
      kind: 'reply',
      text: pass.text,
      usedFallback: true,
      isLlmGenerated: false,
      failure: null,
      suspension: null,
      remote: null,
    };
  } else {
    answer = await answerLocally(parts, ctx, deps, state, toolTurnOf(ctx), { resumed: true });
  }
  const facts = turnFacts({
    ctx,
    answer,
    state: { ...state, agentName: state.setup.agent.name },
    startedAt,
    durationMs: performance.now() - t0,
    inReplyTo: pending.userMessageId,
    resumed,
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

export { newMessageId };
