import { randomUUID } from 'node:crypto';
import { completeUsage, type EventDataInput, type EventType, toAppendUnknown } from '@parley/events';
import { recordedFrom } from '@parley/events/testing';
import type { EventToAppend, RecordedEvent } from '@parley/eventstore';

/** Builders of valid session events for tests (toAppend validates them). */
export function sessionEvents(projectId: string, sessionId: string) {
  const scope = { projectId, sessionId };
  // Each builder passes the data of its own type (checked here); toAppendUnknown validates it again.
  const make = <T extends EventType>(type: T, data: EventDataInput<T>): EventToAppend =>
    toAppendUnknown(type, data, {}, randomUUID());
  return {
    started: (startedAt: string, extra: Partial<EventDataInput<'SessionStarted'>> = {}) =>
      make('SessionStarted', {
        ...scope,
        agentName: 'support',
        channel: 'web_chat',
        environment: 'production',
        traceDimensions: {},
        startedAt,
        ...extra,
      }),
    ended: (endedAt: string, extra: Partial<EventDataInput<'SessionEnded'>> = {}) =>
      make('SessionEnded', { ...scope, status: 'completed', endedAt, ...extra }),
    idled: (lastActivityAt: string, idledAt: string) =>
      make('SessionIdled', { ...scope, lastActivityAt, idledAt }),
    archived: (endedAt: string, archivedAt: string) =>
      make('SessionArchived', { ...scope, endedAt, archivedAt }),
    message: (receivedAt: string) =>
      make('MessageReceived', { ...scope, messageId: randomUUID(), text: 'hello', receivedAt }),
    reply: (repliedAt: string) =>
      make('AgentReplied', {
        ...scope,
        messageId: randomUUID(),
        agentName: 'support',
        text: 'hi',
        repliedAt,
      }),
    trace: (
      eventType: EventDataInput<'TraceEventRecorded'>['eventType'],
      startedAt: string,
      durationMs?: number,
    ) =>
      make('TraceEventRecorded', {
        ...scope,
        traceId: 't1',
        spanId: randomUUID(),
        eventType,
        startedAt,
        ...(durationMs === undefined ? {} : { durationMs }),
      }),
    llmCall: (
      startedAt: string,
      cost: number,
      usage: Parameters<typeof completeUsage>[0],
      latencyMs = 100,
      inSession = true,
    ) =>
      make('LlmCallRecorded', {
        callId: randomUUID(),
        projectId,
        ...(inSession ? { sessionId } : {}),
        agentName: 'support',
        status: 'success',
        statusCode: 200,
        streamingUsed: false,
        cost,
        source: 'runtime',
        sourceSubtype: 'response_generation',
        startedAt,
        usage: completeUsage(usage),
        latencyMs,
        timeToFirstTokenMs: latencyMs,
      }),
  };
}

/** RecordedEvents in the given order, positions increasing (as the log would deliver them). */
export function inLogOrder(events: readonly EventToAppend[], recordedAt = new Date('2025-01-01T00:00:00Z')) {
  return events.map(
    (e, i): RecordedEvent =>
      recordedFrom(e, { position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) }, recordedAt }),
  );
}

/** The same recorded events re-positioned in a new order (recordedAt and ids unchanged). */
export function reordered(events: readonly RecordedEvent[], firstPosition = 1): RecordedEvent[] {
  return events.map((e, i) => ({
    ...e,
    position: { commit: BigInt(firstPosition + i), prepare: BigInt(firstPosition + i) },
  }));
}
