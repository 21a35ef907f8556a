import type { ActionSet, ContainmentType, ReplyMedia } from '@parley/events';
import type { Logger } from '@parley/platform';
import type { RemoteAgent } from '../../agents/schema.js';
import type { Agent, AgentStore } from '../../agents/store.js';
import { ProviderFailedError } from '../../errors.js';
import type { PriceCards } from '../../pricing/index.js';
import type { LlmMessage, ProviderRegistry } from '../../providers/types.js';
import { contentOf } from '../../tools/toolOutcome.js';
import type { ToolRun, ToolRunnerDeps, ToolTurnContext } from '../../tools/toolRunner.js';
import { type AgentSetup, setUpAgent } from './agentSetup.js';
import { callModel } from './callModel.js';
import { runToolRound } from './toolRound.js';
import type { TurnContext } from './turnContext.js';

/** What the agent says when the turn ran out of model calls (tool loop). */
export const FALLBACK_REPLY = "Sorry, I couldn't complete that request.";

export type Ending = {
  status: 'completed' | 'escalated' | 'abandoned';
  containmentType: ContainmentType;
  reason: string;
};

export interface Handoff {
  from: string;
  to: string;
  reason?: string;
  remote?: RemoteAgent;
  spanId: string;
}

/** What the loop accumulates across model calls and agents. */
export interface LoopState {
  setup: AgentSetup;
  /** The conversation sent to the model after the system message (history, the user, this turn's traffic). */
  messages: LlmMessage[];
  /** Model calls of the agents so far this turn (the iteration limit counts them). */
  llmCalls: number;
  actionSet?: ActionSet;
  media: ReplyMedia[];
  ending: Ending | null;
  handoffs: Handoff[];
}

export type LoopOutcome =
  | { kind: 'reply'; text: string; usedFallback: boolean; isLlmGenerated: boolean }
  | { kind: 'failed'; error: ProviderFailedError }
  | { kind: 'suspended'; run: ToolRun; assistantText: string; calls: ToolRun[] }
  | { kind: 'remote'; agent: RemoteAgent };

export interface LoopDeps {
  agents: AgentStore;
  providers: ProviderRegistry;
  priceCards: PriceCards;
  logger: Logger;
  tools: ToolRunnerDeps;
}

const MAX_MEDIA = 10;

/**
 * The model → tools → model loop of a turn: call the current agent's model; if it asked for tools,
 * run them concurrently, feed the results back and call again, until it answers with text, a
 * tool suspends the turn, a handoff passes it to a remote agent, or the agent's maxIterations model
 * calls are spent (the fallback reply). A handoff to a local agent continues the loop with that
 * agent (its prompt and tools) in the same turn.
 */
export async function runAgentLoop(
  ctx: TurnContext,
  deps: LoopDeps,
  state: LoopState,
  turn: ToolTurnContext,
  options: { resumed: boolean; onDelta?: (delta: string) => void },
): Promise<LoopOutcome> {
  for (;;) {
    const { agent, provider, system, tools } = state.setup;
    if (state.llmCalls >= agent.maxIterations) {
      ctx.trace.add({
        eventType: 'error',
        name: 'llm_call_limit',
        status: 'error',
        startedAt: ctx.now().toISOString(),
        attributes: { code: 'llm_call_limit', limit: agent.maxIterations, agent: agent.name },
      });
      return { kind: 'reply', text: FALLBACK_REPLY, usedFallback: true, isLlmGenerated: false };
    }
    const first = state.llmCalls === 0 && !options.resumed;
    const { response, failed, aborted } = await callModel(ctx, deps, {
      agentName: agent.name,
      provider,
      model: agent.model,
      messages: system === null ? state.messages : [system, ...state.messages],
      tools,
      source: 'runtime',
      sourceSubtype: first ? 'response_generation' : 'tool_use_iteration',
      ...(options.onDelta === undefined ? {} : { onDelta: options.onDelta }),
    });
    state.llmCalls += 1;
    if (failed) {
      return {
        kind: 'failed',
        error: new ProviderFailedError(response.provider, response.statusCode, { aborted }),
      };
    }
    if (response.toolCalls.length === 0) {
      return { kind: 'reply', text: response.text, usedFallback: false, isLlmGenerated: true };
    }

    state.messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    const round = await runToolRound(
      ctx,
      deps.tools,
      agent,
      state.setup.offered,
      response.toolCalls,
      turn,
      (run) => checkHandoff(deps, state.setup, run),
    );
    for (const run of round.runs) {
      if (run.outcome.status !== 'suspended') {
        state.messages.push({ role: 'tool', content: contentOf(run.outcome), toolCallId: run.call.id });
      }
    }
    const next = await applyEffects(ctx, deps, state, round.runs);
    if (round.suspended !== null) {
      return { kind: 'suspended', run: round.suspended, assistantText: response.text, calls: round.runs };
    }
    if (next !== null) return { kind: 'remote', agent: next };
  }
}

/** A handoff's target must be one of the agent's targets and usable (stored, its provider configured). */
async function checkHandoff(deps: LoopDeps, setup: AgentSetup, run: ToolRun): Promise<ToolRun> {
  if (run.effect?.kind !== 'handoff') return run;
  const name = run.effect.agentName;
  const usable =
    setup.remoteTargets.includes(name) ||
    (setup.localTargets.includes(name) && (await localTarget(deps, setup.agent.projectId, name)) !== null);
  if (usable) return run;
  const { effect, ...rest } = run;
  return {
    ...rest,
    outcome: { status: 'error', code: 'agent_unavailable', message: `cannot hand off to ${name}` },
    // Kept for the trace: the decision was made, the handoff failed.
    rejectedEffect: effect,
  };
}

async function localTarget(deps: LoopDeps, projectId: string, name: string): Promise<Agent | null> {
  try {
    const target = await deps.agents.resolve(projectId, name);
    deps.providers.get(target.provider);
    return target;
  } catch {
    return null;
  }
}

/**
 * The round's system effects, in call order: the ACTION_SET (the last one given wins), media, the
 * first ending, and the first handoff (decision and handoff trace events; a local target becomes
 * the loop's agent, a remote one is returned for the caller to ask).
 */
async function applyEffects(
  ctx: TurnContext,
  deps: LoopDeps,
  state: LoopState,
  runs: readonly ToolRun[],
): Promise<RemoteAgent | null> {
  let remote: RemoteAgent | null = null;
  let handedOff = false;
  const at = () => ctx.now().toISOString();
  for (const run of runs) {
    if (run.rejectedEffect?.kind === 'handoff')
      traceHandoff(ctx, state.setup.agent.name, run.rejectedEffect, 'error');
    const effect = run.effect;
    if (effect === undefined) continue;
    switch (effect.kind) {
      case 'actions':
        state.actionSet = effect.actionSet;
        break;
      case 'media':
        if (state.media.length < MAX_MEDIA) state.media.push(effect.media);
        break;
      case 'end':
      case 'escalate': {
        if (state.ending !== null) break;
        const containmentType: ContainmentType = effect.kind === 'end' ? effect.containmentType : 'escalated';
        state.ending = {
          status: effect.kind === 'end' ? 'completed' : 'escalated',
          containmentType,
          reason: effect.reason,
        };
        ctx.trace.add({
          eventType: 'decision',
          name: containmentType,
          decisionKind: effect.kind === 'end' ? 'end_conversation' : 'escalation',
          status: 'ok',
          startedAt: at(),
          durationMs: 0,
          attributes: { agent: state.setup.agent.name, containmentType, reason: effect.reason },
        });
        break;
      }
      case 'handoff': {
        if (handedOff) break;
        handedOff = true;
        const from = state.setup.agent.name;
        const remoteAgent = state.setup.agent.handoffs.remote.find((r) => r.name === effect.agentName);
        const spanId = traceHandoff(ctx, from, effect, 'ok', remoteAgent?.url);
        state.handoffs.push({
          from,
          to: effect.agentName,
          ...(effect.reason === undefined ? {} : { reason: effect.reason }),
          ...(remoteAgent === undefined ? {} : { remote: remoteAgent }),
          spanId,
        });
        if (remoteAgent !== undefined) {
          remote = remoteAgent;
          break;
        }
        const target = await deps.agents.resolve(state.setup.agent.projectId, effect.agentName);
        state.setup = await setUpAgent(deps, ctx, target);
        break;
      }
      default: {
        const exhaustive: never = effect;
        throw new Error(`unhandled effect ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return remote;
}

/** A `decision` (decisionKind handoff) and its `handoff` event; answers the handoff event's span id. */
function traceHandoff(
  ctx: TurnContext,
  from: string,
  effect: { agentName: string; reason?: string },
  status: 'ok' | 'error',
  remoteUrl?: string,
): string {
  const at = ctx.now().toISOString();
  ctx.trace.add({
    eventType: 'decision',
    name: effect.agentName,
    decisionKind: 'handoff',
    status: 'ok',
    startedAt: at,
    durationMs: 0,
    attributes: {
      from,
      to: effect.agentName,
      ...(effect.reason === undefined ? {} : { reason: effect.reason }),
    },
  });
  return ctx.trace.add({
    eventType: 'handoff',
    name: effect.agentName,
    status,
    startedAt: at,
    durationMs: 0,
    attributes: {
      from,
      to: effect.agentName,
      target: remoteUrl === undefined ? 'local' : 'remote',
      ...(status === 'error' ? { code: 'agent_unavailable' } : {}),
    },
  });
}
