import type { TraceEventType } from '@parley/events';
import type { Pool, PoolClient } from '@parley/platform';
import { readSnapshot } from '@parley/platform';
import { sessionKnown } from './sessionKnown.js';
import { type TraceEventRecord, toTraceEventRecord } from './traceRecord.js';
import type { TraceEventRow, TraceGenerationRow } from './tracesProjection.js';

export interface TraceListFilter {
  projectId: string;
  sessionId: string;
  /** Any of these types (OR); absent: all. */
  eventTypes?: readonly TraceEventType[];
  /** Any of these decision kinds (OR, exact); absent: all. */
  decisionKinds?: readonly string[];
  limit: number;
  offset: number;
}

export interface TracePage {
  /** Every event matching the filter, across pages. */
  total: number;
  traces: TraceEventRecord[];
}

export type SpanChildren =
  | { found: 'session_not_found' }
  | { found: 'span_not_found' }
  | { found: 'ok'; span: TraceEventRecord; page: TracePage };

const GENERATION_COLUMNS = [
  'call_id',
  'model',
  'provider',
  'status',
  'input_tokens',
  'cached_tokens',
  'completion_tokens',
  'reasoning_tokens',
  'output_tokens',
  'total_tokens',
  'latency_ms',
  'time_to_first_token_ms',
  'streaming_used',
  'cost',
];

/**
 * Each event with its child count and, for `llm_call` events, the recorded call it points at
 * (json of the generation row, or null). `where` filters `t`; the order is the session's: start
 * time, then place in the stream.
 */
const pageSql = (where: string, limitParam: string, offsetParam: string) => `
  select t.*,
         (select count(*) from trace_events c
           where c.project_id = t.project_id and c.session_id = t.session_id
             and c.parent_span_id = t.span_id)::int as child_count,
         (select json_build_object(${GENERATION_COLUMNS.map((c) => `'${c}', g.${c}`).join(', ')})
            from trace_generations g
           where g.project_id = t.project_id and g.session_id = t.session_id and g.call_id = t.llm_call_id) as generation
    from trace_events t
   where ${where}
   order by t.started_at, t.seq, t.event_id
   limit ${limitParam} offset ${offsetParam}`;

type PageRow = TraceEventRow & { child_count: number; generation: TraceGenerationRow | null };

const toRecord = (row: PageRow): TraceEventRecord => {
  const { child_count, generation, ...event } = row;
  // json_build_object gives numbers as JSON numbers already; timestamps are not part of it.
  return toTraceEventRecord(
    {
      ...event,
      started_at: new Date(event.started_at),
      ended_at: event.ended_at && new Date(event.ended_at),
    },
    child_count,
    generation ?? undefined,
  );
};

/** One page of a session's trace events (spec 001 §4.8); null when the session is unknown. */
export async function listTraces(pool: Pool, filter: TraceListFilter): Promise<TracePage | null> {
  return readSnapshot(pool, async (client) => {
    if (!(await sessionKnown(client, filter.projectId, filter.sessionId))) return null;
    const params: unknown[] = [filter.projectId, filter.sessionId];
    const clauses = ['t.project_id = $1', 't.session_id = $2'];
    if (filter.eventTypes !== undefined) {
      params.push(filter.eventTypes);
      clauses.push(`t.event_type = any($${params.length}::text[])`);
    }
    if (filter.decisionKinds !== undefined) {
      params.push(filter.decisionKinds);
      clauses.push(`t.decision_kind = any($${params.length}::text[])`);
    }
    return page(client, clauses.join(' and '), params, filter);
  });
}

/** The direct children of a span (events whose parentSpanId is spanId), one page. */
export async function listSpanChildren(
  pool: Pool,
  filter: { projectId: string; sessionId: string; spanId: string; limit: number; offset: number },
): Promise<SpanChildren> {
  return readSnapshot(pool, async (client) => {
    if (!(await sessionKnown(client, filter.projectId, filter.sessionId)))
      return { found: 'session_not_found' };
    const params = [filter.projectId, filter.sessionId, filter.spanId];
    const span = await client.query<PageRow>(
      pageSql('t.project_id = $1 and t.session_id = $2 and t.span_id = $3', '1', '0'),
      params,
    );
    const first = span.rows[0];
    if (first === undefined) return { found: 'span_not_found' };
    const children = await page(
      client,
      't.project_id = $1 and t.session_id = $2 and t.parent_span_id = $3',
      params,
      filter,
    );
    return { found: 'ok', span: toRecord(first), page: children };
  });
}

async function page(
  client: PoolClient,
  where: string,
  params: unknown[],
  paging: { limit: number; offset: number },
): Promise<TracePage> {
  const counted = await client.query<{ total: number }>(
    `select count(*)::int as total from trace_events t where ${where}`,
    params,
  );
  const total = counted.rows[0]?.total ?? 0;
  if (total <= paging.offset) return { total, traces: [] };
  const n = params.length;
  const { rows } = await client.query<PageRow>(pageSql(where, `$${n + 1}`, `$${n + 2}`), [
    ...params,
    paging.limit,
    paging.offset,
  ]);
  return { total, traces: rows.map(toRecord) };
}
