import type { Agent } from '../../agents/store.js';
import {
  checkInput,
  checkOutput,
  type GuardrailEvaluation,
  type GuardrailPass,
  type ModelCheckCall,
} from '../../guardrails/guardrailChecks.js';
import type { LoopDeps } from './agentLoop.js';
import { callModel } from './callModel.js';
import type { TurnContext } from './turnContext.js';

/** What the agent says when a guardrail blocks and the agent has no blockedReply. */
export const DEFAULT_BLOCKED_REPLY = "Sorry, I can't help with that.";

/** The agent's model check, as a recorded LLM call (ledger source and subtype `guardrails`). */
function modelCheckFor(ctx: TurnContext, deps: LoopDeps, agent: Agent): ModelCheckCall | undefined {
  const config = agent.guardrails.model;
  if (config === undefined) return undefined;
  return async ({ system, user }) => {
    const { response } = await callModel(ctx, deps, {
      agentName: agent.name,
      provider: deps.providers.get(config.provider),
      model: config.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      tools: [],
      source: 'guardrails',
      sourceSubtype: 'guardrails',
    });
    return response;
  };
}

/** Each evaluation as a `guardrail_eval` trace event. */
function traceEvaluations(ctx: TurnContext, agent: Agent, evaluations: readonly GuardrailEvaluation[]): void {
  for (const e of evaluations) {
    ctx.trace.add({
      eventType: 'guardrail_eval',
      name: e.name,
      status: e.status,
      startedAt: e.startedAt.toISOString(),
      durationMs: e.durationMs,
      attributes: { ...e.attributes, agent: agent.name },
    });
  }
}

export async function inputGuardrails(
  ctx: TurnContext,
  deps: LoopDeps,
  agent: Agent,
  text: string,
): Promise<GuardrailPass> {
  const pass = await checkInput(agent.guardrails, text, ctx, modelCheckFor(ctx, deps, agent));
  traceEvaluations(ctx, agent, pass.evaluations);
  return pass;
}

export async function outputGuardrails(
  ctx: TurnContext,
  deps: LoopDeps,
  agent: Agent,
  text: string,
): Promise<GuardrailPass> {
  const pass = await checkOutput(agent.guardrails, text, ctx, modelCheckFor(ctx, deps, agent));
  traceEvaluations(ctx, agent, pass.evaluations);
  return pass;
}

export const blockedReplyOf = (agent: Agent): string =>
  agent.guardrails.blockedReply ?? DEFAULT_BLOCKED_REPLY;
