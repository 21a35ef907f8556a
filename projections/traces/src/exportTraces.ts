import type { TraceEventType } from '@parley/events';
import type { Pool } from '@parley/platform';
import { csvRecord } from './csv.js';
import type { TraceEventRow } from './tracesProjection.js';

export interface TraceExportFilter {
  projectId: string;
  /** Sessions to export (OR); absent: every session of the project. */
  sessionIds?: readonly string[];
  /** Inclusive start and exclusive end on the events' startedAt; each optional. */
  from?: Date;
  to?: Date;
  eventTypes?: readonly TraceEventType[];
}

/** The CSV columns, in order (docs/traces.md). */
export const TRACE_CSV_COLUMNS = [
  'sessionId',
  'eventId',
  'traceId',
  'spanId',
  'parentSpanId',
  'eventType',
  'name',
  'status',
  'decisionKind',
  'llmCallId',
  'startedAt',
  'endedAt',
  'durationMs',
  'attributes',
] as const;

/** Rows per query of the export's keyset walk. */
export const EXPORT_BATCH_ROWS = 5_000;

export function traceCsvRecord(row: TraceEventRow): string {
  return csvRecord([
    row.session_id,
    row.event_id,
    row.trace_id,
    row.span_id,
    row.parent_span_id,
    row.event_type,
    row.name,
    row.status,
    row.decision_kind,
    row.llm_call_id,
    row.started_at.toISOString(),
    row.ended_at?.toISOString(),
    row.duration_ms,
    JSON.stringify(row.attributes ?? {}),
  ]);
}

/**
 * The project's trace events as CSV text, one chunk per batch: the header record first, then the
 * rows in (startedAt, eventId) order. Each batch is one short query resuming after the last row of
 * the one before (a keyset walk of the `(project_id, started_at, event_id)` index), so no
 * transaction or connection is held while the consumer is slow, and memory stays one batch however
 * many rows there are. Pulled lazily: wrap it in `Readable.from` for backpressure; stopping the
 * iteration stops the queries.
 */
export async function* exportTracesCsv(
  pool: Pool,
  filter: TraceExportFilter,
  options: { batchRows?: number } = {},
): AsyncGenerator<string> {
  const batchRows = options.batchRows ?? EXPORT_BATCH_ROWS;
  const params: unknown[] = [filter.projectId];
  const clauses = ['project_id = $1'];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.sessionIds !== undefined) clauses.push(`session_id = any(${param(filter.sessionIds)}::text[])`);
  if (filter.from !== undefined) clauses.push(`started_at >= ${param(filter.from)}`);
  if (filter.to !== undefined) clauses.push(`started_at < ${param(filter.to)}`);
  if (filter.eventTypes !== undefined) clauses.push(`event_type = any(${param(filter.eventTypes)}::text[])`);
  const where = clauses.join(' and ');
  const n = params.length;
  const first = `select * from trace_events where ${where} order by started_at, event_id limit $${n + 1}`;
  const next = `select * from trace_events where ${where} and (started_at, event_id) > ($${n + 2}, $${n + 3})
                 order by started_at, event_id limit $${n + 1}`;

  yield csvRecord(TRACE_CSV_COLUMNS);
  let after: { startedAt: Date; eventId: string } | undefined;
  for (;;) {
    const { rows } = await pool.query<TraceEventRow>(
      after === undefined ? first : next,
      after === undefined ? [...params, batchRows] : [...params, batchRows, after.startedAt, after.eventId],
    );
    if (rows.length === 0) return;
    let chunk = '';
    for (const row of rows) chunk += traceCsvRecord(row);
    yield chunk;
    if (rows.length < batchRows) return;
    const last = rows[rows.length - 1]!;
    after = { startedAt: last.started_at, eventId: last.event_id };
  }
}
