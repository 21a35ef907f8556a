import type { EventDataInput, JsonValue } from '@parley/events';
import { contentOf } from '../../tools/toolOutcome.js';
import type { LoopState } from './agentLoop.js';
import type { Answer } from './answerTurn.js';
import type { TurnFacts } from './recordTurn.js';
import { json, type TurnContext } from './turnContext.js';

export interface FactInputs {
  ctx: TurnContext;
  answer: Answer;
  state: Pick<LoopState, 'actionSet' | 'media' | 'ending' | 'handoffs' | 'llmCalls'> & { agentName: string };
  startedAt: Date;
  durationMs: number;
  /** The user message the reply answers. */
  inReplyTo: string;
  /** A resumed turn closes its suspension. */
  resumed?: EventDataInput<'ToolCallResumed'>;
}

/** The effects a suspended turn keeps for its resumption (ToolCallSuspended.effects). */
export function effectsOf(state: FactInputs['state']): Record<string, JsonValue> {
  return json({
    ...(state.actionSet === undefined ? {} : { actionSet: state.actionSet }),
    ...(state.media.length === 0 ? {} : { media: state.media }),
    ...(state.ending === null ? {} : { ending: state.ending }),
  }) as Record<string, JsonValue>;
}

/** Everything a turn records besides its trace children and LLM calls (recordTurn's `turnBatch`). */
export function turnFacts(input: FactInputs): TurnFacts {
  const { ctx, answer, state } = input;
  const at = ctx.now().toISOString();
  const scope = ctx.scope;
  const suspension = answer.suspension;
  const suspendedOutcome = suspension?.run.outcome.status === 'suspended' ? suspension.run.outcome : null;
  const facts: TurnFacts = {
    root: {
      name: answer.agentName,
      status: answer.kind === 'failed' ? 'error' : 'ok',
      startedAt: input.startedAt.toISOString(),
      durationMs: Math.max(0, Math.round(input.durationMs)),
      attributes: {
        userMessageId: input.inReplyTo,
        ...(answer.kind === 'reply' ? { replyMessageId: ctx.replyMessageId } : {}),
        ...(answer.failure === null ? {} : { code: answer.failure.code }),
        ...(suspendedOutcome === null ? {} : { suspensionId: suspendedOutcome.suspensionId }),
        ...(input.resumed === undefined ? {} : { resumedSuspensionId: input.resumed.suspensionId }),
        ...(answer.remote === null ? {} : { remoteAgent: answer.remote.name }),
        llmCalls: ctx.llmCalls.length,
      },
    },
    handedOff: state.handoffs.map((h) => ({
      ...scope,
      fromAgent: h.from,
      toAgent: h.to,
      ...(h.reason === undefined ? {} : { reason: h.reason }),
      target: h.remote === undefined ? ('local' as const) : ('remote' as const),
      ...(h.remote === undefined ? {} : { remoteUrl: h.remote.url }),
      traceId: ctx.trace.traceId,
      spanId: h.spanId,
      handedOffAt: at,
    })),
    ...(input.resumed === undefined ? {} : { resumed: input.resumed }),
  };
  if (suspension !== null && suspendedOutcome !== null) {
    const span = ctx.trace
      .children()
      .find((e) => e.eventType === 'tool_call' && e.attributes?.toolCallId === suspension.run.call.id);
    facts.suspended = {
      ...scope,
      suspensionId: suspendedOutcome.suspensionId,
      agentName: state.agentName,
      toolName: suspension.run.call.name,
      toolCallId: suspension.run.call.id,
      userMessageId: input.inReplyTo,
      replyMessageId: ctx.replyMessageId,
      traceId: ctx.trace.traceId,
      spanId: span?.spanId ?? ctx.trace.rootSpanId,
      pending: {
        assistantText: suspension.assistantText,
        toolCalls: suspension.calls.map((r) => r.call),
        results: suspension.calls
          .filter((r) => r.outcome.status !== 'suspended')
          .map((r) => ({ toolCallId: r.call.id, content: contentOf(r.outcome) })),
        llmCalls: state.llmCalls,
      },
      effects: effectsOf(state),
      suspendedAt: at,
      expiresAt: suspendedOutcome.expiresAt.toISOString(),
    };
  }
  if (answer.kind === 'reply') {
    facts.replied = {
      ...scope,
      messageId: ctx.replyMessageId,
      inReplyTo: input.inReplyTo,
      agentName: answer.agentName,
      text: answer.text,
      ...(state.actionSet === undefined ? {} : { actionSet: state.actionSet }),
      ...(state.media.length === 0 ? {} : { media: state.media }),
      usedFallback: answer.usedFallback,
      isLlmGenerated: answer.isLlmGenerated,
      repliedAt: at,
    };
    if (state.ending !== null) {
      ctx.trace.add({
        eventType: 'state_change',
        name: 'session_state',
        status: 'ok',
        startedAt: at,
        attributes: {
          from: 'active',
          to: state.ending.status,
          containmentType: state.ending.containmentType,
        },
      });
      facts.ended = {
        ...scope,
        status: state.ending.status,
        containmentType: state.ending.containmentType,
        reason: state.ending.reason,
        endedAt: at,
      };
    }
  }
  return facts;
}
