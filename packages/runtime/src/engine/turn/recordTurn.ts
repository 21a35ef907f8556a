import { type EventDataInput, sessionStream, toAppend } from '@parley/events';
import { type EventStore, type EventToAppend, WrongExpectedVersionError } from '@parley/eventstore';
import { SessionNotFoundError } from '../../errors.js';
import { loadSession } from '../session/loadSession.js';
import type { RuntimeParts } from './runtimeParts.js';
import type { TraceData } from './traceLog.js';
import type { TurnContext } from './turnContext.js';

/** How many times an append is retried when another writer (another process) moved the stream. */
export const APPEND_ATTEMPTS = 10;

/**
 * Appends at the expected revision; when another writer got there first, re-reads the stream and
 * appends after it (the batch stays contiguous). `refresh` returns the revision to retry at, or
 * throws to give up.
 */
export async function appendTurnEvents(
  store: EventStore,
  stream: string,
  events: EventToAppend[],
  expected: bigint | 'no_stream',
  refresh: () => Promise<bigint>,
): Promise<bigint> {
  let expectedRevision: bigint | 'no_stream' = expected;
  for (let attempt = 1; ; attempt++) {
    try {
      return (await store.append(stream, events, { expectedRevision })).nextRevision;
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError) || attempt >= APPEND_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
      expectedRevision = await refresh();
    }
  }
}

export interface TurnFacts {
  root: Omit<TraceData, 'sessionId' | 'projectId' | 'traceId' | 'spanId' | 'parentSpanId' | 'eventType'>;
  handedOff: EventDataInput<'AgentHandedOff'>[];
  suspended?: EventDataInput<'ToolCallSuspended'>;
  resumed?: EventDataInput<'ToolCallResumed'>;
  replied?: EventDataInput<'AgentReplied'>;
  ended?: EventDataInput<'SessionEnded'>;
}

/**
 * The turn's second append, in log order: the root `response` span first (it precedes its
 * children), the children, the LLM calls, the handoffs, the suspension or resumption, the reply,
 * and the end. SessionEnded last, so a session another writer ended meanwhile can drop it.
 */
export function turnBatch(ctx: TurnContext, facts: TurnFacts): EventToAppend[] {
  const metadata = { tenantId: ctx.tenantId, correlationId: ctx.userMessageId };
  const root: TraceData = {
    ...ctx.scope,
    traceId: ctx.trace.traceId,
    spanId: ctx.trace.rootSpanId,
    eventType: 'response',
    ...facts.root,
  };
  return [
    toAppend('TraceEventRecorded', root, metadata),
    ...ctx.trace.children().map((t) => toAppend('TraceEventRecorded', t, metadata)),
    ...ctx.llmCalls.map((c) => toAppend('LlmCallRecorded', c, metadata)),
    ...facts.handedOff.map((h) => toAppend('AgentHandedOff', h, metadata)),
    ...(facts.suspended === undefined ? [] : [toAppend('ToolCallSuspended', facts.suspended, metadata)]),
    ...(facts.resumed === undefined ? [] : [toAppend('ToolCallResumed', facts.resumed, metadata)]),
    ...(facts.replied === undefined ? [] : [toAppend('AgentReplied', facts.replied, metadata)]),
    ...(facts.ended === undefined ? [] : [toAppend('SessionEnded', facts.ended, metadata)]),
  ];
}

/** Appends the turn's batch; a session another writer ended meanwhile keeps that end (the turn's own SessionEnded is dropped). */
export async function recordAfter(
  parts: RuntimeParts,
  ctx: TurnContext,
  facts: TurnFacts,
  revision: bigint | 'no_stream',
): Promise<boolean> {
  return (await recordTurn(parts, ctx, facts, revision)).endedByOther;
}

/** recordAfter, with the batch as appended, the stream's revision after it, and whether another writer came between. */
export async function recordTurn(
  parts: RuntimeParts,
  ctx: TurnContext,
  facts: TurnFacts,
  revision: bigint | 'no_stream',
): Promise<{ endedByOther: boolean; refreshed: boolean; nextRevision: bigint; batch: EventToAppend[] }> {
  const batch = turnBatch(ctx, facts);
  let endedByOther = false;
  let refreshed = false;
  const refreshAny = async (): Promise<bigint> => {
    refreshed = true;
    const view = await loadSession(parts.store, ctx.scope.sessionId);
    if (view === null) throw new SessionNotFoundError(ctx.scope.sessionId);
    if (view.endedStatus !== null && !endedByOther) {
      endedByOther = true;
      if (batch.at(-1)?.type === 'SessionEnded') batch.pop();
    }
    return view.revision;
  };
  const nextRevision = await appendTurnEvents(
    parts.store,
    sessionStream(ctx.scope.sessionId),
    batch,
    revision,
    refreshAny,
  );
  return { endedByOther, refreshed, nextRevision, batch };
}
