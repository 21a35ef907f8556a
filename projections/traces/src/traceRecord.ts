import type { TraceEventType } from '@parley/events';
import type { TraceEventRow, TraceGenerationRow } from './tracesProjection.js';

/** The token usage of a call, as recorded (spec 000 §2.3 names). */
export interface TokenCounts {
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** The LLM call an `llm_call` trace event points at (its `llmCallId`), from LlmCallRecorded. */
export interface TraceLlmCall extends TokenCounts {
  callId: string;
  model: string | null;
  provider: string | null;
  status: string;
  latencyMs: number;
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  cost: number;
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

export const tokenCountsOf = (g: TraceGenerationRow): TokenCounts => ({
  inputTokens: g.input_tokens,
  cachedTokens: g.cached_tokens,
  completionTokens: g.completion_tokens,
  reasoningTokens: g.reasoning_tokens,
  outputTokens: g.output_tokens,
  totalTokens: g.total_tokens,
});

export function toTraceLlmCall(g: TraceGenerationRow): TraceLlmCall {
  return {
    callId: g.call_id,
    model: g.model,
    provider: g.provider,
    status: g.status,
    ...tokenCountsOf(g),
    latencyMs: g.latency_ms,
    timeToFirstTokenMs: g.time_to_first_token_ms,
    streamingUsed: g.streaming_used,
    cost: g.cost,
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
