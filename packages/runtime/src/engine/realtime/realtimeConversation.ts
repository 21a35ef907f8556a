import { sessionStream } from '@parley/events';
import { ParleyError } from '@parley/platform';
import { SessionEndedError, SessionNotFoundError } from '../../errors.js';
import { contentOf } from '../../tools/toolOutcome.js';
import { newMessageId } from '../ids.js';
import { loadSession } from '../session/loadSession.js';
import { describeAgent } from '../turn/agentSetup.js';
import { openSession } from '../turn/openSession.js';
import { appendTurnEvents, type TurnFacts, turnBatch } from '../turn/recordTurn.js';
import { firstEvents } from '../turn/runTurn.js';
import { loadProject, type RuntimeParts } from '../turn/runtimeParts.js';
import { runToolRound } from '../turn/toolRound.js';
import type { TurnContext } from '../turn/turnContext.js';
import { createTurnContext, loopDepsOf, type TurnIdentity, toolTurnOf } from '../turn/turnContextOf.js';
import { recordResponse } from './realtimeLlmCall.js';
import type { RealtimeConversation, RealtimeRequest, RealtimeTurn } from './realtimeTypes.js';

/** The channel of a session a realtime call starts. */
export const REALTIME_CHANNEL = 'voice_realtime';

/** The session is answered by a remote (A2A) agent: no realtime model can speak for it. */
export class RealtimeUnavailableError extends ParleyError {
  constructor(reason: string) {
    super('REALTIME_UNAVAILABLE', 409, `realtime voice is not available: ${reason}`);
    this.name = 'RealtimeUnavailableError';
  }
}

/**
 * Opens a realtime conversation (types in realtimeTypes.ts). Nothing is recorded until the first
 * turn finishes; a claimed session must be the project's and open (SessionNotFoundError,
 * SessionEndedError, as runTurn).
 */
export async function openRealtimeNow(
  parts: RuntimeParts,
  req: RealtimeRequest,
): Promise<RealtimeConversation> {
  const project = await loadProject(parts, req.projectId, req.tenantId);
  const opened = await openSession(parts, {
    projectId: req.projectId,
    tenantId: req.tenantId,
    message: '',
    channel: req.channel ?? REALTIME_CHANNEL,
    ...(req.sessionId === undefined ? {} : { sessionId: req.sessionId }),
    ...(req.agentName === undefined ? {} : { agentName: req.agentName }),
    ...(req.channelType === undefined ? {} : { channelType: req.channelType }),
  });
  if (opened.remote !== null) throw new RealtimeUnavailableError('a remote agent answers the session');
  const identity = (): TurnIdentity => ({
    sessionId: opened.sessionId,
    projectId: req.projectId,
    tenantId: req.tenantId,
    session: {
      channel: opened.channel,
      channelType: opened.channelType,
      environment: opened.environment,
      channelUserId: opened.channelUserId,
    },
    storePayloads: project.storePayloads,
    userMessageId: newMessageId(),
    replyMessageId: newMessageId(),
    messageMetadata: undefined,
    origin: null,
    stream: false,
  });
  const described = await describeAgent(parts, createTurnContext(parts, identity(), {}), opened.agent);
  const agent = described.agent;
  // Realtime turns are not suspended (no resumable turn) and do not hand off (one session config).
  const suspending = new Set(agent.tools.filter((t) => t.suspend !== undefined).map((t) => t.name));
  const tools = described.tools.filter((t) => t.name !== 'handoff' && !suspending.has(t.name));
  const offered = new Set(tools.map((t) => t.name));
  const prompt = { instructions: described.system?.content ?? '', tools: tools.map((t) => t.name) };
  const state = { exists: !opened.created, revision: opened.revision, chain: Promise.resolve() };
  const stream = sessionStream(opened.sessionId);

  const refresh = async (): Promise<bigint> => {
    const view = await loadSession(parts.store, opened.sessionId);
    if (view === null) throw new SessionNotFoundError(opened.sessionId);
    if (view.endedStatus !== null) throw new SessionEndedError(opened.sessionId, view.endedStatus);
    return view.revision;
  };

  function beginTurn(): RealtimeTurn {
    const receivedAt = parts.now();
    const t0 = performance.now();
    const ctx = createTurnContext(parts, identity(), {});
    const deps = loopDepsOf(parts, ctx);
    const toolTurn = toolTurnOf(ctx);
    let ending: TurnFacts['ended'] | undefined;
    return {
      async runTool(call) {
        const round = await runToolRound(ctx, deps.tools, agent, offered, [call], toolTurn);
        const run = round.runs[0];
        if (run === undefined) return { output: '', status: 'error', ending: false };
        const effect = run.effect;
        if ((effect?.kind === 'end' || effect?.kind === 'escalate') && ending === undefined) {
          const at = ctx.now().toISOString();
          ending = {
            ...ctx.scope,
            status: effect.kind === 'end' ? 'completed' : 'escalated',
            containmentType: effect.kind === 'end' ? effect.containmentType : 'escalated',
            reason: effect.reason,
            endedAt: at,
          };
        }
        return {
          output: contentOf(run.outcome),
          status: run.outcome.status === 'error' ? 'error' : 'ok',
          ending: ending !== undefined,
        };
      },
      recordResponse: (facts) => recordResponse(ctx, parts, agent.name, prompt, facts),
      finish(input) {
        const done = state.chain.then(async () => {
          if (!state.exists) ctx.trace.add(sessionActive(receivedAt));
          const first = firstEvents(
            {
              projectId: req.projectId,
              tenantId: req.tenantId,
              message: input.userText,
              ...(req.channelMetadata === undefined ? {} : { channelMetadata: req.channelMetadata }),
            },
            { ...opened, created: !state.exists },
            ctx,
            input.userText,
            receivedAt,
          );
          const revision = await appendTurnEvents(parts.store, stream, first, state.revision, refresh);
          state.exists = true;
          const facts = turnFactsOf(ctx, agent.name, input, receivedAt, t0, ending);
          state.revision = await appendTurnEvents(
            parts.store,
            stream,
            turnBatch(ctx, facts),
            revision,
            refresh,
          );
          return { sessionId: opened.sessionId, ended: ending !== undefined };
        });
        state.chain = done.then(
          () => undefined,
          () => undefined,
        );
        return done;
      },
    };
  }

  return {
    sessionId: opened.sessionId,
    agent: {
      name: agent.name,
      provider: agent.provider,
      model: agent.model,
      instructions: described.system?.content ?? '',
      tools,
      history: opened.history.filter(
        (m) => m.role === 'user' || (m.role === 'assistant' && m.content !== ''),
      ),
    },
    beginTurn,
  };
}

const sessionActive = (at: Date) => ({
  eventType: 'state_change' as const,
  name: 'session_state',
  status: 'ok' as const,
  startedAt: at.toISOString(),
  attributes: { from: null, to: 'active' },
});

function turnFactsOf(
  ctx: TurnContext,
  agentName: string,
  input: { userText: string; agentText: string; interrupted: boolean },
  receivedAt: Date,
  t0: number,
  ending: TurnFacts['ended'] | undefined,
): TurnFacts {
  const at = ctx.now().toISOString();
  const failed = ctx.llmCalls.length > 0 && ctx.llmCalls.every((c) => c.status === 'failed');
  if (ending !== undefined) {
    ctx.trace.add({
      eventType: 'state_change',
      name: 'session_state',
      status: 'ok',
      startedAt: at,
      attributes: { from: 'active', to: ending.status, containmentType: ending.containmentType ?? null },
    });
  }
  return {
    root: {
      name: agentName,
      status: failed ? 'error' : 'ok',
      startedAt: receivedAt.toISOString(),
      durationMs: Math.max(0, Math.round(performance.now() - t0)),
      attributes: {
        userMessageId: ctx.userMessageId,
        replyMessageId: ctx.replyMessageId,
        llmCalls: ctx.llmCalls.length,
        voiceMode: 'realtime',
        interrupted: input.interrupted,
      },
    },
    handedOff: [],
    replied: {
      ...ctx.scope,
      messageId: ctx.replyMessageId,
      inReplyTo: ctx.userMessageId,
      agentName,
      text: input.agentText,
      usedFallback: false,
      isLlmGenerated: true,
      repliedAt: at,
    },
    ...(ending === undefined ? {} : { ended: { ...ending, endedAt: at } }),
  };
}
