import type { LedgerFilter, LedgerMatch, LedgerSortField } from '@parley/analytics';
import { type Pool, type PoolClient, readSnapshot } from '@parley/platform';
import {
  type LedgerPayload,
  type LedgerRecord,
  type LedgerSummaryRow,
  toLedgerRecord,
} from './ledgerRecord.js';
import { ledgerTotalSql } from './ledgerTotal.js';
import {
  fitCount,
  GENERATIONS_BUDGET_BYTES,
  jsonBytes,
  maxRowsWithin,
  PAYLOAD_KEY_BYTES,
} from './pageBudget.js';

export interface LedgerPage {
  /** Every call matching the filter, across pages. */
  total: number;
  generations: LedgerRecord[];
  /** Whether calls follow this page: offset + generations.length < total. */
  hasMore: boolean;
}

export interface ListLedgerOptions {
  /** Bytes the serialised `generations` array may take; default 1 MiB less the envelope reserve. */
  maxBytes?: number;
}

const SORT_COLUMNS: Record<LedgerSortField, string> = {
  timestamp: 'started_at',
  latencyMs: 'latency_ms',
  cost: 'cost',
  totalTokens: 'total_tokens',
};

const SUMMARY_COLUMNS = [
  'id',
  'call_id',
  'session_id',
  'trace_id',
  'event_id',
  'model',
  'provider',
  'agent_name',
  'environment',
  'channel',
  'channel_type',
  'status',
  'status_code',
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
  'started_at',
  'source',
  'source_subtype',
  'source_id',
  'payload_state',
  'payload_bytes',
].join(', ');

/** The summary columns of the page's rows (alias `l`). */
const PAGE_COLUMNS = SUMMARY_COLUMNS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ');

/** The WHERE clause and its parameters (appended to `params`): every filter given, AND-combined, exact. */
export function ledgerWhere(filter: LedgerMatch, params: unknown[] = []): { sql: string; params: unknown[] } {
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [
    `project_id = ${param(filter.projectId)}`,
    `started_at >= ${param(filter.from)}`,
    `started_at < ${param(filter.to)}`,
  ];
  const anyOf = (column: string, values: readonly string[] | undefined): void => {
    if (values !== undefined) clauses.push(`${column} = any(${param(values)}::text[])`);
  };
  anyOf('session_id', filter.sessionIds);
  anyOf('channel', filter.channels);
  anyOf('channel_type', filter.channelTypes);
  anyOf('source', filter.sources);
  anyOf('source_subtype', filter.sourceSubtypes);
  anyOf('model', filter.models);
  anyOf('provider', filter.providers);
  anyOf('environment', filter.environments);
  anyOf('agent_name', filter.agentNames);
  if (filter.status !== undefined) clauses.push(`status = ${param(filter.status)}`);
  return { sql: clauses.join(' and '), params };
}

/**
 * One page of the ledger (spec 000 §4.3), read from the views in one repeatable-read snapshot so
 * that `total`, the rows and their payloads agree. Sorted by the requested field, then by id in
 * the same direction (deterministic). The page holds fewer than `limit` rows when the serialised
 * `generations` would pass the budget (1 MiB less the envelope reserve), in either data mode;
 * `payload` is read only for dataMode=full, and only for the rows that fit.
 */
export async function listLedger(
  pool: Pool,
  filter: LedgerFilter,
  options: ListLedgerOptions = {},
): Promise<LedgerPage> {
  const budget = options.maxBytes ?? GENERATIONS_BUDGET_BYTES;
  const { sql: where, params } = ledgerWhere(filter);
  const column = SORT_COLUMNS[filter.sort.field];
  const direction = filter.sort.direction === 'asc' ? 'asc' : 'desc';
  const fetch = Math.min(filter.limit, maxRowsWithin(budget));

  // JIT compiles wide counts for ~150 ms and saves nothing on them (docs/performance.md).
  return readSnapshot(
    pool,
    async (client) => {
      const totalSql = ledgerTotalSql(filter);
      const counted = await client.query<{ total: number }>(
        `select ${totalSql.sql}::bigint as total`,
        totalSql.params,
      );
      const total = counted.rows[0]?.total ?? 0;
      const page =
        total > filter.offset
          ? await client.query<LedgerSummaryRow>(
              // Keys first, then rows (a deferred join): the walk of the sort index tests the window
              // and the filters on the index's included columns, index-only, and only the page's rows
              // are read from the table (a by-cost page of rare matches: 1.3 s → docs/performance.md).
              `select ${PAGE_COLUMNS}
                 from (select id, ${column} from llm_ledger where ${where}
                        order by ${column} ${direction}, id ${direction}
                        limit $${params.length + 1} offset $${params.length + 2}) k
                 join llm_ledger l on l.project_id = $1 and l.id = k.id
                order by k.${column} ${direction}, k.id ${direction}`,
              [...params, fetch, filter.offset],
            )
          : { rows: [] };
      const generations =
        filter.dataMode === 'full'
          ? await withPayloads(client, filter.projectId, page.rows, budget)
          : fitted(page.rows.map(toLedgerRecord), budget);
      return { total, generations, hasMore: filter.offset + generations.length < total };
    },
    ['set local jit = off'],
  );
}

function fitted(records: LedgerRecord[], budget: number): LedgerRecord[] {
  return records.slice(0, fitCount(records.map(jsonBytes), budget));
}

/**
 * Full mode: cut the page by the stored payload sizes first, so payloads of rows that cannot fit
 * are never read, then attach the payloads and cut again by the exact serialisation.
 */
async function withPayloads(
  client: PoolClient,
  projectId: string,
  rows: readonly LedgerSummaryRow[],
  budget: number,
): Promise<LedgerRecord[]> {
  const records = rows.map(toLedgerRecord);
  const estimated = records.map(
    (record, i) =>
      jsonBytes(record) +
      (record.payloadState === 'available' ? (rows[i]?.payload_bytes ?? 0) + PAYLOAD_KEY_BYTES : 0),
  );
  const kept = records.slice(0, fitCount(estimated, budget));
  const ids = kept.filter((r) => r.payloadState === 'available').map((r) => r.id);
  if (ids.length === 0) return kept;
  const { rows: payloads } = await client.query<{ id: string; payload: LedgerPayload }>(
    'select id, payload from llm_ledger_payloads where project_id = $1 and id = any($2::text[])',
    [projectId, ids],
  );
  const byId = new Map(payloads.map((p) => [p.id, p.payload]));
  const full = kept.map((record) => {
    const payload = byId.get(record.id);
    return payload === undefined ? record : { ...record, payload };
  });
  return fitted(full, budget);
}
