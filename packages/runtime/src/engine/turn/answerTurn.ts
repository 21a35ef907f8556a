import type { ParleyError } from '@parley/platform';
import type { RemoteAgent } from '../../agents/schema.js';
import type { Agent } from '../../agents/store.js';
import type { LlmMessage } from '../../providers/types.js';
import type { ToolRun, ToolTurnContext } from '../../tools/toolRunner.js';
import { type LoopDeps, type LoopState, runAgentLoop } from './agentLoop.js';
import { blockedReplyOf, outputGuardrails } from './guardrailStage.js';
import { askRemoteAgent, forwardedHistory, RemoteAgentFailedError } from './remoteAgent.js';
import type { RuntimeParts } from './runtimeParts.js';
import type { TurnContext } from './turnContext.js';

/** How the turn was answered (before it is recorded). */
export interface Answer {
  /** The agent whose reply it is (a remote agent's name when one answered). */
  agentName: string;
  kind: 'reply' | 'failed' | 'suspended';
  text: string;
  usedFallback: boolean;
  isLlmGenerated: boolean;
  failure: ParleyError | null;
  suspension: { run: ToolRun; assistantText: string; calls: ToolRun[] } | null;
  /** Remote agent that answered, if one did. */
  remote: RemoteAgent | null;
}

const failed = (agentName: string, failure: ParleyError): Answer => ({
  agentName,
  kind: 'failed',
  text: '',
  usedFallback: false,
  isLlmGenerated: false,
  failure,
  suspension: null,
  remote: null,
});

/** The reply after the output guardrails of `guardAgent` (a block replaces it with the blocked reply). */
async function guarded(
  ctx: TurnContext,
  deps: LoopDeps,
  guardAgent: Agent,
  answer: Omit<Answer, 'kind' | 'failure' | 'suspension'>,
): Promise<Answer> {
  const pass = await outputGuardrails(ctx, deps, guardAgent, answer.text);
  return {
    ...answer,
    kind: 'reply',
    failure: null,
    suspension: null,
    text: pass.blocked ? blockedReplyOf(guardAgent) : pass.text,
    isLlmGenerated: answer.isLlmGenerated && !pass.blocked,
  };
}

/**
 * Asks a remote agent (A2A) for the reply: the user's message, the conversation so far forwarded
 * in `message.metadata.history`. `via` is the agent that handed off (its secrets hold the bearer).
 */
export async function answerRemotely(
  parts: RuntimeParts,
  ctx: TurnContext,
  deps: LoopDeps,
  via: Agent,
  remote: RemoteAgent,
  messages: readonly LlmMessage[],
): Promise<Answer> {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const text = messages[lastUser]?.content ?? '';
  try {
    if (parts.toolFetch === undefined) throw new RemoteAgentFailedError(remote.name, 'unavailable');
    const secrets = remote.bearerSecret === undefined ? {} : await ctx.secretsOf(via);
    const reply = await askRemoteAgent(parts.toolFetch, remote, {
      text,
      history: forwardedHistory(messages.slice(0, Math.max(0, lastUser))),
      contextId: ctx.scope.sessionId,
      ...(remote.bearerSecret === undefined || secrets[remote.bearerSecret] === undefined
        ? {}
        : { bearer: secrets[remote.bearerSecret] }),
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
    });
    return guarded(ctx, deps, via, {
      agentName: remote.name,
      text: reply,
      usedFallback: false,
      isLlmGenerated: true,
      remote,
    });
  } catch (err) {
    if (!(err instanceof RemoteAgentFailedError)) throw err;
    ctx.trace.add({
      eventType: 'error',
      name: 'remote_agent_failed',
      status: 'error',
      startedAt: ctx.now().toISOString(),
      attributes: { code: 'remote_agent_failed', agent: remote.name, reason: err.reason },
    });
    return failed(remote.name, err);
  }
}

/** The local agents' loop, then a remote agent if one was handed the turn, then the output guardrails. */
export async function answerLocally(
  parts: RuntimeParts,
  ctx: TurnContext,
  deps: LoopDeps,
  state: LoopState,
  turn: ToolTurnContext,
  options: { resumed: boolean; onDelta?: (delta: string) => void },
): Promise<Answer> {
  const handingOff = () => state.setup.agent;
  const outcome = await runAgentLoop(ctx, deps, state, turn, options);
  const agent = state.setup.agent;
  switch (outcome.kind) {
    case 'failed':
      return failed(agent.name, outcome.error);
    case 'suspended':
      return {
        agentName: agent.name,
        kind: 'suspended',
        text: '',
        usedFallback: false,
        isLlmGenerated: false,
        failure: null,
        suspension: { run: outcome.run, assistantText: outcome.assistantText, calls: outcome.calls },
        remote: null,
      };
    case 'remote':
      return answerRemotely(parts, ctx, deps, handingOff(), outcome.agent, state.messages);
    case 'reply':
      return guarded(ctx, deps, agent, {
        agentName: agent.name,
        text: outcome.text,
        usedFallback: outcome.usedFallback,
        isLlmGenerated: outcome.isLlmGenerated,
        remote: null,
      });
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unhandled loop outcome ${JSON.stringify(exhaustive)}`);
    }
  }
}
