import type { Pool } from '@parley/platform';
import { readSnapshot } from '@parley/platform';
import { type TokenCounts, tokenCountsOf } from './traceRecord.js';
import type { PromptMetadata } from './traceRows.js';
import type { TraceGenerationRow } from './tracesProjection.js';

export interface GenerationFilter {
  projectId: string;
  /** Inclusive start and exclusive end on the call's startedAt; each optional. */
  from?: Date;
  to?: Date;
  sessionIds?: readonly string[];
  models?: readonly string[];
  providers?: readonly string[];
  agentNames?: readonly string[];
  status?: 'success' | 'failed';
  limit: number;
  offset: number;
}

/** An LLM generation of a session on the wire (spec 001 §4.8 /generations; docs/traces.md). */
export interface GenerationRecord extends TokenCounts {
  /** `<sessionId>:<callId>`, the ledger's id of the same call. */
  id: string;
  callId: string;
  sessionId: string;
  traceId: string | null;
  spanId: string | null;
  eventId: string;
  agentName: string;
  provider: string | null;
  model: string | null;
  status: string;
  statusCode: number;
  environment: string | null;
  channel: string | null;
  channelType: string | null;
  latencyMs: number;
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  cost: number;
  priceCardVersion: string | null;
  source: string;
  sourceSubtype: string;
  startedAt: string;
  promptMetadata: PromptMetadata;
}

export interface GenerationPage {
  total: number;
  generations: GenerationRecord[];
}

export function toGenerationRecord(g: TraceGenerationRow): GenerationRecord {
  return {
    id: `${g.session_id}:${g.call_id}`,
    callId: g.call_id,
    sessionId: g.session_id,
    traceId: g.trace_id,
    spanId: g.span_id,
    eventId: g.event_id,
    agentName: g.agent_name,
    provider: g.provider,
    model: g.model,
    status: g.status,
    statusCode: g.status_code,
    environment: g.environment,
    channel: g.channel,
    channelType: g.channel_type,
    ...tokenCountsOf(g),
    latencyMs: g.latency_ms,
    timeToFirstTokenMs: g.time_to_first_token_ms,
    streamingUsed: g.streaming_used,
    cost: g.cost,
    priceCardVersion: g.price_card_version,
    source: g.source,
    sourceSubtype: g.source_subtype,
    startedAt: g.started_at.toISOString(),
    promptMetadata: {
      stored: g.prompt_stored,
      messageCount: g.prompt_message_count,
      toolCount: g.prompt_tool_count,
      promptBytes: g.prompt_bytes,
      responseBytes: g.response_bytes,
    },
  };
}

/**
 * One page of the project's LLM generations made in sessions, newest first (startedAt, then
 * sessionId and callId, descending), with `total` from the same snapshot.
 */
export async function listGenerations(pool: Pool, filter: GenerationFilter): Promise<GenerationPage> {
  const params: unknown[] = [filter.projectId];
  const clauses = ['project_id = $1'];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.from !== undefined) clauses.push(`started_at >= ${param(filter.from)}`);
  if (filter.to !== undefined) clauses.push(`started_at < ${param(filter.to)}`);
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (values !== undefined) clauses.push(`${column} = any(${param(values)}::text[])`);
  };
  anyOf('session_id', filter.sessionIds);
  anyOf('model', filter.models);
  anyOf('provider', filter.providers);
  anyOf('agent_name', filter.agentNames);
  if (filter.status !== undefined) clauses.push(`status = ${param(filter.status)}`);
  const where = clauses.join(' and ');
  return readSnapshot(pool, async (client) => {
    const counted = await client.query<{ total: number }>(
      `select count(*)::int as total from trace_generations where ${where}`,
      params,
    );
    const total = counted.rows[0]?.total ?? 0;
    if (total <= filter.offset) return { total, generations: [] };
    const { rows } = await client.query<TraceGenerationRow>(
      `select * from trace_generations where ${where}
        order by started_at desc, session_id desc, call_id desc
        limit $${params.length + 1} offset $${params.length + 2}`,
      [...params, filter.limit, filter.offset],
    );
    return { total, generations: rows.map(toGenerationRecord) };
  });
}
