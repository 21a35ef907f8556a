import { ProviderFailedError } from '../../errors.js';
import type { TurnResult } from '../types.js';
import type { LoopState } from './agentLoop.js';
import type { Answer } from './answerTurn.js';
import type { TurnFacts } from './recordTurn.js';
import type { TurnContext } from './turnContext.js';

/** What runTurn answers once the turn is recorded; a failed turn rejects (its error) instead. */
export function resultOf(input: {
  ctx: TurnContext;
  answer: Answer;
  state: Pick<LoopState, 'actionSet' | 'media' | 'ending' | 'handoffs'>;
  facts: TurnFacts;
  created: boolean;
  endedByOther: boolean;
  t0: number;
  pendingReply: string;
}): TurnResult {
  const { ctx, answer, state, facts } = input;
  if (answer.failure !== null) throw answer.failure;
  const suspended = facts.suspended;
  const lastHandoff = state.handoffs.at(-1);
  return {
    sessionId: ctx.scope.sessionId,
    created: input.created,
    userMessageId: ctx.userMessageId,
    agentName: answer.agentName,
    reply: {
      messageId: ctx.replyMessageId,
      text: suspended === undefined ? answer.text : input.pendingReply,
      ...(suspended === undefined && state.actionSet !== undefined ? { actionSet: state.actionSet } : {}),
      ...(suspended === undefined && state.media.length > 0 ? { media: state.media } : {}),
      usedFallback: answer.usedFallback,
      isLlmGenerated: answer.isLlmGenerated,
    },
    suspended:
      suspended === undefined
        ? null
        : {
            suspensionId: suspended.suspensionId,
            toolName: suspended.toolName,
            expiresAt: suspended.expiresAt,
          },
    handedOff:
      lastHandoff === undefined
        ? null
        : { from: state.handoffs[0]!.from, to: lastHandoff.to, remote: lastHandoff.remote !== undefined },
    llmCalls: ctx.llmCalls.length,
    usage: ctx.usage,
    latencyMs: Math.max(0, Math.round(performance.now() - input.t0)),
    ended:
      facts.ended === undefined || input.endedByOther
        ? null
        : {
            status: facts.ended.status,
            ...(facts.ended.containmentType === undefined
              ? {}
              : { containmentType: facts.ended.containmentType }),
          },
  };
}

export { ProviderFailedError };
