import type { Agent, AgentStore } from '../../agents/store.js';
import type { LlmMessage, LlmProvider, ProviderRegistry, ToolDefinition } from '../../providers/types.js';
import { SYSTEM_TOOL_NAMES, systemToolDefinitions } from '../../tools/systemTools.js';
import { renderPrompt } from '../messageMetadata.js';
import type { TurnContext } from './turnContext.js';

/** An agent ready to be called: its provider, system message, tools and handoff targets. */
export interface AgentSetup {
  agent: Agent;
  provider: LlmProvider;
  system: LlmMessage | null;
  tools: ToolDefinition[];
  offered: ReadonlySet<string>;
  /** Agents of the project it may hand off to. */
  localTargets: string[];
  /** Remote (A2A) agents it may hand off to, by name. */
  remoteTargets: string[];
}

/** The values `contextAccess.read` lets the model see, by key. */
function contextOf(agent: Agent, ctx: TurnContext): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of agent.contextAccess.read) {
    switch (key) {
      case 'session.id':
        values[key] = ctx.scope.sessionId;
        break;
      case 'session.channel':
        values[key] = ctx.session.channel;
        break;
      case 'session.environment':
        values[key] = ctx.session.environment;
        break;
      case 'session.channelUserId':
        values[key] = ctx.session.channelUserId ?? null;
        break;
      case 'session.messageMetadata':
      case 'message_metadata':
        values[key] = ctx.messageMetadata ?? null;
        break;
      default: {
        const exhaustive: never = key;
        throw new Error(`unknown context key ${String(exhaustive)}`);
      }
    }
  }
  return values;
}

/**
 * Builds what a model call of `agent` needs. The system prompt gets this turn's message metadata
 * (`{{session.messageMetadata.…}}`) and, when `contextAccess.read` names anything, a context block.
 * The handoff targets are the agent's `handoffs.targets` (default: every other agent of the
 * project) and its remote agents; the `handoff` tool is offered only when there is one.
 */
export async function setUpAgent(
  deps: { agents: AgentStore; providers: ProviderRegistry },
  ctx: TurnContext,
  agent: Agent,
): Promise<AgentSetup> {
  const provider = deps.providers.get(agent.provider);
  return { ...(await describeAgent(deps, ctx, agent)), provider };
}

/** setUpAgent without the LLM provider: what a realtime (native audio) session of the agent needs. */
export async function describeAgent(
  deps: { agents: AgentStore },
  ctx: TurnContext,
  agent: Agent,
): Promise<Omit<AgentSetup, 'provider'>> {
  const localTargets =
    agent.systemTools.handoff === false
      ? []
      : (agent.handoffs.targets ?? (await deps.agents.list(agent.projectId)).map((a) => a.name)).filter(
          (name) => name !== agent.name,
        );
  const remoteTargets = agent.systemTools.handoff === false ? [] : agent.handoffs.remote.map((r) => r.name);
  const context = contextOf(agent, ctx);
  const prompt = [
    renderPrompt(agent.systemPrompt, ctx.messageMetadata),
    Object.keys(context).length === 0 ? '' : `Context (JSON): ${JSON.stringify(context)}`,
  ]
    .filter((part) => part !== '')
    .join('\n\n');
  const userTools: ToolDefinition[] = agent.tools
    .filter((t) => !(SYSTEM_TOOL_NAMES as readonly string[]).includes(t.name))
    .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  const tools = [
    ...userTools,
    ...systemToolDefinitions(agent.systemTools, [...localTargets, ...remoteTargets]),
  ];
  return {
    agent,
    system: prompt === '' ? null : { role: 'system', content: prompt },
    tools,
    offered: new Set(tools.map((t) => t.name)),
    localTargets,
    remoteTargets,
  };
}
