import type { EventDataInput } from '@parley/events';
import { newSpanId, newTraceId } from '../ids.js';

export type TraceData = EventDataInput<'TraceEventRecorded'>;
export type TraceInput = Omit<
  TraceData,
  'sessionId' | 'projectId' | 'traceId' | 'spanId' | 'parentSpanId'
> & {
  /** Default: the turn's root span. */
  parentSpanId?: string;
};

/** Tool results and arguments kept in trace attributes are cut to this many characters. */
export const ATTRIBUTE_TEXT_LIMIT = 2000;
export const cut = (text: string): string =>
  text.length <= ATTRIBUTE_TEXT_LIMIT ? text : `${text.slice(0, ATTRIBUTE_TEXT_LIMIT)}…`;

/**
 * The trace of one turn: one trace id, a root span (the `response` event, written last because its
 * duration is the turn's) and its children in the order they happened. A child may be updated
 * (a tool_call's status once its tool finished) until the turn is recorded.
 */
export interface TraceLog {
  readonly traceId: string;
  readonly rootSpanId: string;
  add(event: TraceInput): string;
  update(spanId: string, change: Partial<TraceInput>): void;
  /** The children, in order. */
  children(): TraceData[];
}

export function createTraceLog(scope: { sessionId: string; projectId: string }): TraceLog {
  const traceId = newTraceId();
  const rootSpanId = newSpanId();
  const events: TraceData[] = [];
  return {
    traceId,
    rootSpanId,
    add(event) {
      const spanId = newSpanId();
      events.push({ ...scope, traceId, spanId, ...event, parentSpanId: event.parentSpanId ?? rootSpanId });
      return spanId;
    },
    update(spanId, change) {
      const index = events.findIndex((e) => e.spanId === spanId);
      if (index >= 0) events[index] = { ...events[index]!, ...change } as TraceData;
    },
    children: () => [...events],
  };
}
