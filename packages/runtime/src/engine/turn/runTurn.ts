import { sessionStream, toAppend } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { SessionEndedError, SessionNotFoundError } from '../../errors.js';
import { outputMayChange } from '../../guardrails/guardrailChecks.js';
import { newMessageId } from '../ids.js';
import { loadSession } from '../session/loadSession.js';
import { foldAppended, StaleSessionViewError } from '../session/sessionViewCache.js';
import type { RunTurnOptions, TurnRequest, TurnResult } from '../types.js';
import type { LoopDeps, LoopState } from './agentLoop.js';
import { type AgentSetup, setUpAgent } from './agentSetup.js';
import { type Answer, answerLocally, answerRemotely } from './answerTurn.js';
import { withForwardedHistory } from './forwardedHistory.js';
import { blockedReplyOf, inputGuardrails } from './guardrailStage.js';
import { type OpenedSession, openSession } from './openSession.js';
import { appendTurnEvents, recordTurn } from './recordTurn.js';
import { loadProject, type RuntimeParts } from './runtimeParts.js';
import { turnAgents } from './turnAgents.js';
import { jsonObject, type TurnContext } from './turnContext.js';
import { createTurnContext, loopDepsOf, toolTurnOf } from './turnContextOf.js';
import { turnFacts } from './turnFacts.js';
import { resultOf } from './turnResult.js';

/** The user's message as the model reads it: an ACTION_SET answer says which element was picked. */
function userContent(text: string, actionEvent: Record<string, unknown> | undefined): string {
  if (actionEvent === undefined) return text;
  return `${text}\n[selected action: ${JSON.stringify(actionEvent).slice(0, 1000)}]`;
}

/** Append 1: the user's message (with SessionStarted for a new session), its text as the input guardrails left it. */
export function firstEvents(
  req: TurnRequest,
  opened: OpenedSession,
  ctx: TurnContext,
  text: string,
  receivedAt: Date,
): EventToAppend[] {
  const metadata = { tenantId: req.tenantId, correlationId: ctx.userMessageId };
  const events: EventToAppend[] = [];
  if (opened.created) {
    events.push(
      toAppend(
        'SessionStarted',
        {
          ...ctx.scope,
          tenantId: req.tenantId,
          ...(opened.agent.deploymentId === null ? {} : { deploymentId: opened.agent.deploymentId }),
          agentName: opened.agent.name,
          channel: opened.channel,
          ...(opened.channelType === undefined ? {} : { channelType: opened.channelType }),
          environment: opened.environment,
          ...(opened.channelUserId === undefined ? {} : { channelUserId: opened.channelUserId }),
          traceDimensions: {},
          startedAt: receivedAt.toISOString(),
        },
        metadata,
      ),
    );
  }
  events.push(
    toAppend(
      'MessageReceived',
      {
        ...ctx.scope,
        messageId: ctx.userMessageId,
        text,
        ...(req.externalMessageId === undefined ? {} : { externalMessageId: req.externalMessageId }),
        ...(req.actionEvent === undefined ? {} : { actionEvent: jsonObject(req.actionEvent) }),
        ...(req.channelMetadata === undefined ? {} : { channelMetadata: jsonObject(req.channelMetadata) }),
        ...(req.messageMetadata === undefined ? {} : { messageMetadata: jsonObject(req.messageMetadata) }),
        ...(req.sentAt === undefined ? {} : { sentAt: req.sentAt }),
        receivedAt: receivedAt.toISOString(),
      },
      metadata,
    ),
  );
  return events;
}

/**
 * Text deltas for a streamed turn: cut at the output guardrail's length; none at all when an output
 * guardrail may change the reply after the model wrote it (PII, model check): the final text is
 * then the only one the caller sees.
 */
function deltaSink(req: TurnRequest, options: RunTurnOptions, setup: AgentSetup | null, messageId: string) {
  const onEvent = options.onEvent;
  if (req.stream !== true || onEvent === undefined || setup === null) return undefined;
  if (outputMayChange(setup.agent.guardrails)) return undefined;
  const max = setup.agent.guardrails.maxReplyChars;
  let sent = 0;
  return (delta: string) => {
    const room = max === undefined ? delta.length : max - sent;
    if (room <= 0) return;
    const part = delta.slice(0, room);
    sent += part.length;
    onEvent({ type: 'text_delta', messageId, delta: part });
  };
}

/**
 * One turn, as stages: open the session → check the input → record the message → answer (the
 * agent loop, or a remote agent) → record everything the turn produced in one append.
 */
/** The turn's context: its ids, where it runs, the trace and the LLM facts to come. */
function turnContextFor(
  parts: RuntimeParts,
  req: TurnRequest,
  opened: OpenedSession,
  storePayloads: boolean,
  options: RunTurnOptions,
): TurnContext {
  return createTurnContext(
    parts,
    {
      sessionId: opened.sessionId,
      projectId: req.projectId,
      tenantId: req.tenantId,
      session: {
        channel: opened.channel,
        channelType: opened.channelType,
        environment: opened.environment,
        channelUserId: opened.channelUserId,
      },
      storePayloads,
      userMessageId: newMessageId(),
      replyMessageId: newMessageId(),
      messageMetadata: req.messageMetadata,
      origin: req.origin ?? null,
      stream: req.stream === true,
    },
    options,
  );
}

/** The answer: the blocked reply, the remote agent's, or the local agents' loop. */
function answer(
  parts: RuntimeParts,
  ctx: TurnContext,
  deps: LoopDeps,
  opened: OpenedSession,
  state: LoopState,
  blocked: boolean,
  onDelta: ((delta: string) => void) | undefined,
): Promise<Answer> {
  if (blocked) {
    return Promise.resolve({
      agentName: opened.agent.name,
      kind: 'reply',
      text: blockedReplyOf(opened.agent),
      usedFallback: false,
      isLlmGenerated: false,
      failure: null,
      suspension: null,
      remote: null,
    });
  }
  if (opened.remote !== null)
    return answerRemotely(parts, ctx, deps, opened.agent, opened.remote, state.messages);
  return answerLocally(parts, ctx, deps, state, toolTurnOf(ctx), {
    resumed: false,
    ...(onDelta === undefined ? {} : { onDelta }),
  });
}

/**
 * The turn's reads, at once: the project, the project's agents (turnAgents: every agent lookup of
 * the turn answers from one list) and, for an existing session, its view: this process's cached
 * view of it (SessionViewCache, taken out until the turn succeeds), else the stream read.
 */
function startReads(parts: RuntimeParts, req: TurnRequest, fromCache: boolean) {
  const agents = turnAgents(parts.agents);
  // The project's row and its agents in one query when the store can (else two at once).
  const project = agents.prefetchWithProject(req.projectId);
  if (project === undefined) agents.prefetch(req.projectId);
  const sessionId = req.sessionId;
  const cached = fromCache && sessionId !== undefined ? parts.sessionViews?.get(sessionId) : undefined;
  if (sessionId !== undefined) parts.sessionViews?.delete(sessionId);
  const read =
    sessionId === undefined || cached !== undefined ? undefined : loadSession(parts.store, sessionId);
  read?.catch(() => {});
  return { turnParts: { ...parts, agents }, project, cached, view: cached ?? read };
}

export async function runTurnNow(
  parts: RuntimeParts,
  req: TurnRequest,
  options: RunTurnOptions,
): Promise<TurnResult> {
  try {
    return await runTurnOnce(parts, req, options, true);
  } catch (err) {
    // Another writer appended since this process's last turn of the session: start again from the log.
    if (!(err instanceof StaleSessionViewError)) throw err;
    return runTurnOnce(parts, req, options, false);
  }
}

async function runTurnOnce(
  parts: RuntimeParts,
  req: TurnRequest,
  options: RunTurnOptions,
  fromCache: boolean,
): Promise<TurnResult> {
  const t0 = performance.now();
  const receivedAt = parts.now();
  const reads = startReads(parts, req, fromCache);
  const turnParts = reads.turnParts;
  const project = await loadProject(parts, req.projectId, req.tenantId, reads.project);
  const opened = await openSession(turnParts, req, reads.view);
  const ctx = turnContextFor(turnParts, req, opened, project.storePayloads, options);
  const deps = loopDepsOf(turnParts, ctx);
  // The provider is resolved before anything is recorded: a misconfigured agent records no message.
  const setup = opened.remote === null ? await setUpAgent(deps, ctx, opened.agent) : null;
  if (opened.created) {
    ctx.trace.add({
      eventType: 'state_change',
      name: 'session_state',
      status: 'ok',
      startedAt: receivedAt.toISOString(),
      attributes: { from: null, to: 'active' },
    });
  }
  const input = await inputGuardrails(ctx, deps, opened.agent, req.message);
  let contiguous = true;
  const refreshOpen = async (): Promise<bigint> => {
    if (reads.cached !== undefined) throw new StaleSessionViewError(opened.sessionId);
    contiguous = false;
    const view = await loadSession(parts.store, opened.sessionId);
    if (view === null) throw new SessionNotFoundError(opened.sessionId);
    if (view.endedStatus !== null) throw new SessionEndedError(opened.sessionId, view.endedStatus);
    return view.revision;
  };
  const first = firstEvents(req, opened, ctx, input.text, receivedAt);
  const revision = await appendTurnEvents(
    parts.store,
    sessionStream(opened.sessionId),
    first,
    opened.revision,
    refreshOpen,
  );
  const state: LoopState = {
    // Null only when a remote agent answers (the loop does not run).
    setup: setup as AgentSetup,
    messages: [
      ...withForwardedHistory(opened.history, req.forwardedHistory),
      { role: 'user', content: userContent(input.text, req.actionEvent) },
    ],
    llmCalls: 0,
    media: [],
    ending: null,
    handoffs: [],
  };
  const answered = await answer(
    turnParts,
    ctx,
    deps,
    opened,
    state,
    input.blocked,
    deltaSink(req, options, setup, ctx.replyMessageId),
  );
  const facts = turnFacts({
    ctx,
    answer: answered,
    state: { ...state, agentName: state.setup?.agent.name ?? opened.agent.name },
    startedAt: receivedAt,
    durationMs: performance.now() - t0,
    inReplyTo: ctx.userMessageId,
  });
  const recorded = await recordTurn(parts, ctx, facts, revision);
  if (contiguous && !recorded.refreshed) {
    // Nothing else was appended in between: the view is the stream's, as of the turn's last append.
    parts.sessionViews?.set(
      opened.sessionId,
      foldAppended(opened.view, [...first, ...recorded.batch], recorded.nextRevision),
    );
  }
  return resultOf({
    ctx,
    answer: answered,
    state,
    facts,
    created: opened.created,
    endedByOther: recorded.endedByOther,
    t0,
    pendingReply: pendingReplyOf(state, answered),
  });
}

function pendingReplyOf(state: LoopState, answer: Answer): string {
  if (answer.suspension === null) return '';
  const tool = state.setup?.agent.tools.find((t) => t.name === answer.suspension?.run.call.name);
  return tool?.suspend?.pendingReply ?? 'One moment: I am waiting for an answer and will get back to you.';
}
