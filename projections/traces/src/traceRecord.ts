import type { TraceEventType } from '@parley/events';
import { type LlmCallMeasures, llmCallMeasuresOf } from '@parley/projection-llm-ledger/llmCallColumns';
import type { TraceEventRow, TraceGenerationRow } from './tracesProjection.js';

export type { TokenCounts } from '@parley/projection-llm-ledger/llmCallColumns';
export { tokenCountsOf } from '@parley/projection-llm-ledger/llmCallColumns';

/** The LLM call an `llm_call` trace event points at (its `llmCallId`), from LlmCallRecorded. */
export interface TraceLlmCall extends LlmCallMeasures {
  callId: string;
  model: string | null;
  provider: string | null;
  status: string;
}

/**
 * One trace event on the wire (spec 001 §2.6; the field list is ours: docs/traces.md). Absent
 * values are null; `attributes` is `{}` when none were recorded.
 */
export interface TraceEventRecord {
  eventId: string;
  sessionId: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  eventType: TraceEventType;
  name: string | null;
  status: 'ok' | 'error' | 'blocked' | null;
  decisionKind: string | null;
  llmCallId: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  attributes: Record<string, unknown>;
  /** Events whose parentSpanId is this event's spanId (`/traces/{spanId}/children`). */
  childCount: number;
  /** The recorded call of an `llm_call` event; null for other types and calls not (yet) recorded. */
  llmCall: TraceLlmCall | null;
}

export function toTraceLlmCall(g: TraceGenerationRow): TraceLlmCall {
  return {
    callId: g.call_id,
    model: g.model,
    provider: g.provider,
    status: g.status,
    ...llmCallMeasuresOf(g),
  };
}

export function toTraceEventRecord(
  row: TraceEventRow,
  childCount: number,
  call: TraceGenerationRow | undefined,
): TraceEventRecord {
  return {
    eventId: row.event_id,
    sessionId: row.session_id,
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    eventType: row.event_type as TraceEventType,
    name: row.name,
    status: row.status as TraceEventRecord['status'],
    decisionKind: row.decision_kind,
    llmCallId: row.llm_call_id,
    startedAt: row.started_at.toISOString(),
    endedAt: row.ended_at === null ? null : row.ended_at.toISOString(),
    durationMs: row.duration_ms,
    attributes: (row.attributes ?? {}) as Record<string, unknown>,
    childCount,
    llmCall: call === undefined ? null : toTraceLlmCall(call),
  };
}
