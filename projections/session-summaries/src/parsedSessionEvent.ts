import { type ParleyEvent, parseEvent } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';

export type SessionEvent = Extract<
  ParleyEvent,
  {
    type:
      | 'SessionStarted'
      | 'SessionEnded'
      | 'SessionIdled'
      | 'SessionArchived'
      | 'MessageReceived'
      | 'AgentReplied'
      | 'TraceEventRecorded'
      | 'LlmCallRecorded'
      | 'VoiceCallStatusChanged';
  }
>;

type InSession<E> = E extends { data: infer D } ? E & { data: D & { sessionId: string } } : never;
export type SessionScopedEvent = InSession<SessionEvent>;

// keys() and evolve() of both tables see the same event object: parse (upcast, validate) it once.
// A WeakMap keyed by the event object is a cache, not state: the result depends on the event only.
const cache = new WeakMap<RecordedEvent, SessionScopedEvent | null>();

/**
 * The event, upcast and validated, when it belongs to a session this projection summarises; null
 * for other types and for LLM calls and voice call statuses outside any session. Invalid data throws
 * (InvalidEventDataError), which stops the projection rather than skipping a fact.
 */
export function parsedSessionEvent(event: RecordedEvent): SessionScopedEvent | null {
  const cached = cache.get(event);
  if (cached !== undefined) return cached;
  const parsed = parseEvent(event);
  let result: SessionScopedEvent | null = null;
  if (parsed.known) {
    switch (parsed.type) {
      case 'SessionStarted':
      case 'SessionEnded':
      case 'SessionIdled':
      case 'SessionArchived':
      case 'MessageReceived':
      case 'AgentReplied':
      case 'TraceEventRecorded':
        result = parsed as SessionScopedEvent;
        break;
      case 'LlmCallRecorded':
      case 'VoiceCallStatusChanged':
        if (parsed.data.sessionId !== undefined) result = parsed as SessionScopedEvent;
        break;
      default:
        break;
    }
  }
  cache.set(event, result);
  return result;
}
