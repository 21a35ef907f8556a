import { sessionStream, toAppend } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { SessionEndedError, SessionNotFoundError } from '../../errors.js';
import { outputMayChange } from '../../guardrails/guardrailChecks.js';
import { newMessageId } from '../ids.js';
import { loadSession } from '../session/loadSession.js';
import type { RunTurnOptions, TurnRequest, TurnResult } from '../types.js';
import type { LoopDeps, LoopState } from './agentLoop.js';
import { type AgentSetup, setUpAgent } from './agentSetup.js';
import { type Answer, answerLocally, answerRemotely } from './answerTurn.js';
import { withForwardedHistory } from './forwardedHistory.js';
import { blockedReplyOf, inputGuardrails } from './guardrailStage.js';
import { type OpenedSession, openSession } from './openSession.js';
import { appendTurnEvents, turnBatch } from './recordTurn.js';
import { loadProject, type RuntimeParts } from './runtimeParts.js';
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
function firstEvents(
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

export async function runTurnNow(
  parts: RuntimeParts,
  req: TurnRequest,
  options: RunTurnOptions,
): Promise<TurnResult> {
  const t0 = performance.now();
  const receivedAt = parts.now();
  const project = await loadProject(parts, req.projectId, req.tenantId);
  const opened = await openSession(parts, req);
  const ctx = turnContextFor(parts, req, opened, project.storePayloads, options);
  const deps = loopDepsOf(parts, ctx);
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
  const refreshOpen = async (): Promise<bigint> => {
    const view = await loadSession(parts.store, opened.sessionId);
    if (view === null) throw new SessionNotFoundError(opened.sessionId);
    if (view.endedStatus !== null) throw new SessionEndedError(opened.sessionId, view.endedStatus);
    return view.revision;
  };
  const revision = await appendTurnEvents(
    parts.store,
    sessionStream(opened.sessionId),
    firstEvents(req, opened, ctx, input.text, receivedAt),
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
    parts,
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
  const endedByOther = await recordAfter(parts, ctx, facts, revision);
  return resultOf({
    ctx,
    answer: answered,
    state,
    facts,
    created: opened.created,
    endedByOther,
    t0,
    pendingReply: pendingReplyOf(state, answered),
  });
}

/** Appends the turn's batch; a session another writer ended meanwhile keeps that end (the turn's own SessionEnded is dropped). */
export async function recordAfter(
  parts: RuntimeParts,
  ctx: TurnContext,
  facts: ReturnType<typeof turnFacts>,
  revision: bigint | 'no_stream',
): Promise<boolean> {
  const batch = turnBatch(ctx, facts);
  let endedByOther = false;
  const refreshAny = async (): Promise<bigint> => {
    const view = await loadSession(parts.store, ctx.scope.sessionId);
    if (view === null) throw new SessionNotFoundError(ctx.scope.sessionId);
    if (view.endedStatus !== null && !endedByOther) {
      endedByOther = true;
      if (batch.at(-1)?.type === 'SessionEnded') batch.pop();
    }
    return view.revision;
  };
  await appendTurnEvents(parts.store, sessionStream(ctx.scope.sessionId), batch, revision, refreshAny);
  return endedByOther;
}

function pendingReplyOf(state: LoopState, answer: Answer): string {
  if (answer.suspension === null) return '';
  const tool = state.setup?.agent.tools.find((t) => t.name === answer.suspension?.run.call.name);
  return tool?.suspend?.pendingReply ?? 'One moment: I am waiting for an answer and will get back to you.';
}
