import type { LlmCallRecordedData } from '@parley/events';

/**
 * The measures of an LLM call (LlmCallRecorded) that both the ledger (`llm_ledger`) and the traces
 * (`trace_generations`) keep: one definition of their columns, their values and how they read
 * back. Spread at the same place in each table, so neither table's DDL (nor its generation) changes.
 */
export const llmCallMeasureColumns = {
  input_tokens: 'bigint',
  cached_tokens: 'bigint',
  completion_tokens: 'bigint',
  reasoning_tokens: 'bigint',
  output_tokens: 'bigint',
  total_tokens: 'bigint',
  latency_ms: 'bigint',
  time_to_first_token_ms: 'bigint',
  streaming_used: 'boolean',
  cost: 'double precision',
} as const;

/** The columns' values, as the projections' rows hold them. */
export interface LlmCallMeasureRow {
  input_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  output_tokens: number;
  total_tokens: number;
  latency_ms: number;
  time_to_first_token_ms: number;
  streaming_used: boolean;
  cost: number;
}

/** The token usage of a call, as recorded (spec 000 §2.3 names). */
export interface TokenCounts {
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** A call's measures on the wire (the ledger's records, the traces' `llmCall` and generations). */
export interface LlmCallMeasures extends TokenCounts {
  latencyMs: number;
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  cost: number;
}

/**
 * The row values both tables take from a recorded call as it is (the ledger maps model, provider,
 * environment, channel and source on top; the traces keep them as recorded): ids, status, the
 * channel type, the measures and the start.
 */
export const llmCallRowValues = (call: LlmCallRecordedData, eventId: string) => ({
  call_id: call.callId,
  event_id: eventId,
  trace_id: call.traceId ?? null,
  agent_name: call.agentName,
  status: call.status,
  status_code: call.statusCode,
  channel_type: call.channelType ?? null,
  // The measures written out, not spread from an object of their own: a spread in the middle of
  // a literal copies property by property (with ledgerRow's, a sixth of a ledger rebuild's fold).
  input_tokens: call.usage.inputTokens,
  cached_tokens: call.usage.cachedTokens,
  completion_tokens: call.usage.completionTokens,
  reasoning_tokens: call.usage.reasoningTokens,
  output_tokens: call.usage.outputTokens,
  total_tokens: call.usage.totalTokens,
  latency_ms: call.latencyMs,
  time_to_first_token_ms: call.timeToFirstTokenMs,
  streaming_used: call.streamingUsed,
  cost: call.cost,
  started_at: new Date(call.startedAt),
});

export const tokenCountsOf = (row: LlmCallMeasureRow): TokenCounts => ({
  inputTokens: row.input_tokens,
  cachedTokens: row.cached_tokens,
  completionTokens: row.completion_tokens,
  reasoningTokens: row.reasoning_tokens,
  outputTokens: row.output_tokens,
  totalTokens: row.total_tokens,
});

/** A row's measures as the wire names them, in the order the records list them. */
export const llmCallMeasuresOf = (row: LlmCallMeasureRow): LlmCallMeasures => ({
  ...tokenCountsOf(row),
  latencyMs: row.latency_ms,
  timeToFirstTokenMs: row.time_to_first_token_ms,
  streamingUsed: row.streaming_used,
  cost: row.cost,
});
