import { sourceLabel, sourceSubtypeLabel } from '@parley/analytics';
import type { PayloadState } from './ledgerRow.js';
import { llmCallMeasuresOf } from './llmCallColumns.js';
import type { LedgerRow } from './llmLedgerProjection.js';

/** The prompt sent and the response received, as recorded (spec 000 §2.3 `payload`). */
export interface LedgerPayload {
  prompt: unknown;
  response: unknown;
}

/**
 * One LLM call record of the ledger API (spec 000 §2.3), fields in the spec's order. Every field the
 * spec types as a string is a string: a value the call did not record is `''` (never null), namely
 * sessionId and traceId (design-time calls have no session), environment, channel and channelType
 * (design-time calls), sourceId (docs/decisions.md "Ledger fields").
 */
export interface LedgerRecord {
  id: string;
  model: string;
  agentName: string;
  provider: string;
  environment: string;
  status: 'success' | 'failed';
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
  latencyMs: number;
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  cost: number;
  timestamp: string;
  sessionId: string;
  callId: string;
  traceId: string;
  eventId: string;
  source: string;
  sourceSubtype: string;
  sourceLabel: string;
  sourceSubtypeLabel: string;
  sourceId: string;
  channel: string;
  channelType: string;
  statusCode: number;
  payloadState: PayloadState;
  /** Only with dataMode=full and where stored; the key is absent otherwise. */
  payload?: LedgerPayload;
}

/** What a string field of the spec holds when the call did not record it (the table keeps null). */
export const NOT_RECORDED = '';

/** The summary columns listLedger selects (every column of `llm_ledger` but project_id). */
export type LedgerSummaryRow = Omit<LedgerRow, 'project_id'>;

export function toLedgerRecord(row: LedgerSummaryRow): LedgerRecord {
  return {
    id: row.id,
    model: row.model,
    agentName: row.agent_name,
    provider: row.provider,
    environment: row.environment ?? NOT_RECORDED,
    status: row.status as LedgerRecord['status'],
    ...llmCallMeasuresOf(row),
    timestamp: row.started_at.toISOString(),
    sessionId: row.session_id ?? NOT_RECORDED,
    callId: row.call_id,
    traceId: row.trace_id ?? NOT_RECORDED,
    eventId: row.event_id,
    source: row.source,
    sourceSubtype: row.source_subtype,
    sourceLabel: sourceLabel(row.source),
    sourceSubtypeLabel: sourceSubtypeLabel(row.source_subtype, row.source),
    sourceId: row.source_id ?? NOT_RECORDED,
    channel: row.channel ?? NOT_RECORDED,
    channelType: row.channel_type ?? NOT_RECORDED,
    statusCode: row.status_code,
    payloadState: row.payload_state as PayloadState,
  };
}
