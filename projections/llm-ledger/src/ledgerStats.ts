import { BUCKET_MS, type LedgerStatsFilter, type LedgerStatsGroupBy } from '@parley/analytics';
import { type Pool, type PoolClient, readSnapshot } from '@parley/platform';
import { ledgerWhere } from './listLedger.js';

/** At most this many series; beyond, the lowest-cost groups are folded into one series. */
export const MAX_SERIES = 20;
/** The key of the folded series. */
export const OTHER_SERIES = 'other';

export interface LedgerStatsPoint {
  /** ISO start of the bucket (UTC, aligned to the Unix epoch). */
  t: string;
  calls: number;
  failed: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** percentile_cont over the calls' latencyMs, rounded to whole ms (half up); null without latency. */
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export interface LedgerStatsTotal {
  key: string;
  calls: number;
  failed: number;
  cost: number;
  totalTokens: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export interface LedgerStats {
  /** By total cost descending, then key; each series' points by time, only buckets with calls. */
  series: Array<{ key: string; points: LedgerStatsPoint[] }>;
  /** One per series, in the same order. */
  totals: LedgerStatsTotal[];
}

const GROUP_COLUMNS: Record<LedgerStatsGroupBy, string> = {
  model: 'model',
  provider: 'provider',
  source: 'source',
};

interface StatsRow {
  k: string;
  /** null on a series' total row (the grouping set without the bucket). */
  t: Date | null;
  calls: number;
  failed: number;
  cost: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  p50: number | null;
  p95: number | null;
}

const percentile = (p: number) =>
  `round((percentile_cont(${p}) within group (order by latency_ms))::numeric)::bigint`;
const AGGREGATES = `count(*)::int as calls, (count(*) filter (where status = 'failed'))::int as failed,
  sum(cost::numeric)::float8 as cost, sum(input_tokens)::bigint as input_tokens,
  sum(output_tokens)::bigint as output_tokens, sum(total_tokens)::bigint as total_tokens,
  ${percentile(0.5)} as p50, ${percentile(0.95)} as p95`;

/**
 * The ledger's time series (GET …/llm-ledger/stats): the calls matching the ledger's filters,
 * counted per group and bucket, and per group over the window (GROUPING SETS: one scan). With more
 * than 20 groups, the 19 costliest (a stored group named `other` aside) keep their key and the rest
 * are read again as one `other` series, in the same repeatable-read snapshot, so points and totals
 * always agree. Costs are summed as exact decimals of the stored values, then read back as numbers
 * (no float drift, the same sum in any order).
 */
export async function ledgerStats(pool: Pool, filter: LedgerStatsFilter): Promise<LedgerStats> {
  // As the ledger page: JIT compiles wide aggregates for longer than it saves. The sorts of the
  // grouping sets and percentiles stay in memory for a day of a busy project (100k calls).
  return readSnapshot(
    pool,
    async (client) => {
      const rows = await statsRows(client, filter);
      let groups = assemble(rows);
      if (groups.length > MAX_SERIES) {
        const kept = groups.filter((g) => g.key !== OTHER_SERIES).slice(0, MAX_SERIES - 1);
        const other = await statsRows(
          client,
          filter,
          kept.map((g) => g.key),
        );
        groups = sortByCost([...kept, ...assemble(other)]);
      }
      return {
        series: groups.map(({ key, points }) => ({ key, points })),
        totals: groups.map(({ total }) => total),
      };
    },
    ['set local jit = off', "set local work_mem = '64MB'"],
  );
}

/** Per group and bucket, and per group; with `except`: the calls of every other group as `other`. */
async function statsRows(
  client: PoolClient,
  filter: LedgerStatsFilter,
  except?: string[],
): Promise<StatsRow[]> {
  const { sql: where, params } = ledgerWhere(filter);
  const param = (value: unknown) => `$${params.push(value)}`;
  const column = GROUP_COLUMNS[filter.groupBy];
  const bucket = `date_bin(${param(`${BUCKET_MS[filter.bucket] / 1000} seconds`)}::interval, started_at, timestamptz '1970-01-01T00:00:00Z')`;
  const sql =
    except === undefined
      ? `select ${column} as k, ${bucket} as t, ${AGGREGATES}
           from llm_ledger where ${where} group by grouping sets ((1, 2), (1))`
      : `select ${param(OTHER_SERIES)}::text as k, ${bucket} as t, ${AGGREGATES}
           from llm_ledger where ${where} and not (${column} = any(${param(except)}::text[]))
          group by grouping sets ((2), ())`;
  const { rows } = await client.query<StatsRow>(sql, params);
  return rows;
}

interface Group {
  key: string;
  total: LedgerStatsTotal;
  points: LedgerStatsPoint[];
}

/** Rows into groups (points by time), by total cost descending, then key. */
function assemble(rows: readonly StatsRow[]): Group[] {
  const byKey = new Map<string, { total?: LedgerStatsTotal; points: LedgerStatsPoint[] }>();
  for (const row of rows) {
    const entry = byKey.get(row.k) ?? { points: [] };
    byKey.set(row.k, entry);
    if (row.t === null) {
      entry.total = {
        key: row.k,
        calls: row.calls,
        failed: row.failed,
        cost: row.cost,
        totalTokens: row.total_tokens,
        latencyP50Ms: row.p50,
        latencyP95Ms: row.p95,
      };
    } else {
      entry.points.push({
        t: row.t.toISOString(),
        calls: row.calls,
        failed: row.failed,
        cost: row.cost,
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        totalTokens: row.total_tokens,
        latencyP50Ms: row.p50,
        latencyP95Ms: row.p95,
      });
    }
  }
  const groups = [...byKey.entries()].flatMap(([key, { total, points }]) =>
    total === undefined ? [] : [{ key, total, points: points.sort((a, b) => (a.t < b.t ? -1 : 1)) }],
  );
  return sortByCost(groups);
}

const sortByCost = (groups: Group[]): Group[] =>
  groups.sort((a, b) => b.total.cost - a.total.cost || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
