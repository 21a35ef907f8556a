import type { LedgerStatsFilter } from '@parley/analytics';
import type { Pool } from '@parley/platform';
import { ledgerStats } from '@parley/projection-llm-ledger';
import { BIG_PROJECT, DATA_DAYS, DATA_FROM, loadQueryData } from './queryData.js';
import { type Latency, timeRuns } from './stats.js';

export interface LedgerStatsRow {
  scenario: string;
  /** Calls aggregated, series and points returned, of the last run. */
  calls: number;
  series: number;
  points: number;
  latency: Latency;
  targetMs: number;
}

export interface LedgerStatsBenchResult {
  sessions: number;
  calls: number;
  loadSeconds: number;
  rows: LedgerStatsRow[];
}

const DAY = 86_400_000;
/** Run i's window of `days` days: a different start each run, so one cached plan cannot flatter it. */
const window = (days: number) => (run: number) => {
  const from = new Date(DATA_FROM.getTime() + ((run * 5) % Math.max(1, DATA_DAYS - days)) * DAY);
  return { from, to: new Date(from.getTime() + days * DAY) };
};
const sixHours = (run: number) => {
  const from = new Date(DATA_FROM.getTime() + ((run * 37) % ((DATA_DAYS - 1) * 24)) * 3_600_000);
  return { from, to: new Date(from.getTime() + 6 * 3_600_000) };
};

/**
 * GET …/llm-ledger/stats's query (ledgerStats) over the queries section's data (loadQueryData: the
 * ledger rows of project bench-big, 60% of them, spread over 30 days).
 */
export async function benchLedgerStats(
  pool: Pool,
  options: { sessions: number; calls: number; runs: number; budgetMs: number },
  progress: (line: string) => void,
): Promise<LedgerStatsBenchResult> {
  const { seconds: loadSeconds } = await loadQueryData(pool, options, progress);
  const scenarios: Array<{
    scenario: string;
    targetMs: number;
    filter: (run: number) => Omit<LedgerStatsFilter, 'projectId'>;
  }> = [
    {
      scenario: '6 hours by minute, groupBy=model',
      targetMs: 250,
      filter: (r) => ({ ...sixHours(r), bucket: 'minute', groupBy: 'model' }),
    },
    {
      scenario: 'a day by hour, groupBy=model',
      targetMs: 1_000,
      filter: (r) => ({ ...window(1)(r), bucket: 'hour', groupBy: 'model' }),
    },
    {
      scenario: 'a week by hour, groupBy=provider, model=gpt-4o + status=success',
      targetMs: 5_000,
      filter: (r) => ({
        ...window(7)(r),
        bucket: 'hour',
        groupBy: 'provider',
        models: ['gpt-4o'],
        status: 'success',
      }),
    },
    {
      scenario: 'a week by hour, groupBy=model',
      targetMs: 5_000,
      filter: (r) => ({ ...window(7)(r), bucket: 'hour', groupBy: 'model' }),
    },
    {
      scenario: 'all 30 days by day, groupBy=source',
      targetMs: 10_000,
      filter: () => ({ ...window(DATA_DAYS)(0), bucket: 'day', groupBy: 'source' }),
    },
  ];
  const rows: LedgerStatsRow[] = [];
  for (const s of scenarios) {
    let last = { calls: 0, series: 0, points: 0 };
    const latency = await timeRuns(
      options.runs,
      async (run) => {
        const stats = await ledgerStats(pool, { projectId: BIG_PROJECT, ...s.filter(run) });
        last = {
          calls: stats.totals.reduce((sum, t) => sum + t.calls, 0),
          series: stats.series.length,
          points: stats.series.reduce((sum, x) => sum + x.points.length, 0),
        };
      },
      { budgetMs: options.budgetMs, warmup: 1 },
    );
    progress(
      `  ledger-stats ${s.scenario}: p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, ${last.calls} calls`,
    );
    rows.push({ scenario: s.scenario, ...last, latency, targetMs: s.targetMs });
  }
  return { sessions: options.sessions, calls: options.calls, loadSeconds, rows };
}
