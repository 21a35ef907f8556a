import type { Environment } from '@parley/events';
import type { Agent } from '../../agents/store.js';
import type { ToolRunnerDeps, ToolTurnContext } from '../../tools/toolRunner.js';
import type { RunTurnOptions } from '../types.js';
import type { LoopDeps } from './agentLoop.js';
import type { RuntimeParts } from './runtimeParts.js';
import { createTraceLog } from './traceLog.js';
import { type TurnContext, ZERO_USAGE } from './turnContext.js';

export interface TurnIdentity {
  sessionId: string;
  projectId: string;
  tenantId: string;
  session: {
    channel: string;
    channelType: string | undefined;
    environment: Environment;
    channelUserId: string | undefined;
  };
  storePayloads: boolean;
  userMessageId: string;
  replyMessageId: string;
  messageMetadata: Record<string, unknown> | undefined;
  origin: Record<string, unknown> | null;
  stream: boolean;
}

export function createTurnContext(
  parts: RuntimeParts,
  id: TurnIdentity,
  options: RunTurnOptions,
): TurnContext {
  const scope = { sessionId: id.sessionId, projectId: id.projectId };
  const secrets = new Map<string, Promise<Record<string, string>>>();
  return {
    scope,
    tenantId: id.tenantId,
    session: id.session,
    storePayloads: id.storePayloads,
    userMessageId: id.userMessageId,
    replyMessageId: id.replyMessageId,
    messageMetadata: id.messageMetadata,
    origin: id.origin,
    trace: createTraceLog(scope),
    llmCalls: [],
    usage: ZERO_USAGE,
    stream: id.stream,
    signal: options.signal,
    onEvent: options.onEvent,
    now: parts.now,
    secretsOf(agent: Agent) {
      const cached = secrets.get(agent.id) ?? parts.agents.secrets(agent);
      secrets.set(agent.id, cached);
      return cached;
    },
  };
}

export function loopDepsOf(parts: RuntimeParts, ctx: TurnContext): LoopDeps {
  const tools: ToolRunnerDeps = {
    ...(parts.toolFetch === undefined ? {} : { fetch: parts.toolFetch }),
    secrets: (agent) => ctx.secretsOf(agent),
    ...(parts.suspensions === undefined ? {} : { suspensions: parts.suspensions }),
    ...(parts.publicBaseUrl === undefined ? {} : { publicBaseUrl: parts.publicBaseUrl }),
    defaultSuspensionSeconds: parts.suspensionTimeoutSeconds,
    now: parts.now,
  };
  return {
    agents: parts.agents,
    providers: parts.providers,
    priceCards: parts.priceCards,
    logger: parts.logger,
    tools,
  };
}

export function toolTurnOf(ctx: TurnContext): ToolTurnContext {
  return {
    sessionId: ctx.scope.sessionId,
    projectId: ctx.scope.projectId,
    tenantId: ctx.tenantId,
    template: {
      session: {
        id: ctx.scope.sessionId,
        channel: ctx.session.channel,
        environment: ctx.session.environment,
        channelUserId: ctx.session.channelUserId,
        messageMetadata: ctx.messageMetadata,
      },
    },
    origin: ctx.origin,
    suspensionSlot: { taken: false },
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
  };
}
