import type { LedgerFilter } from '@parley/analytics';
import type { Pool } from '@parley/platform';
import { listLedger } from '@parley/projection-llm-ledger';
import { listSessions, type SessionListFilter } from '@parley/projection-session-summaries';
import { BIG_PROJECT, DATA_DAYS, DATA_FROM, loadQueryData } from './queryData.js';
import { type Latency, timeRuns } from './stats.js';

export interface QueryResultRow {
  query: 'listSessions' | 'listLedger';
  scenario: string;
  limit: number;
  /** Matches (`total`) and rows returned, of the last run. */
  total: number;
  returned: number;
  latency: Latency;
  targetMs: number;
}

export interface QueryBenchResult {
  sessions: number;
  calls: number;
  loadSeconds: number;
  rows: QueryResultRow[];
}

const DAY = 86_400_000;
/** Run i's week: a different start day each run, so one cached plan or page cannot flatter it. */
const week = (run: number) => {
  const from = new Date(DATA_FROM.getTime() + ((run * 5) % (DATA_DAYS - 7)) * DAY);
  return { from, to: new Date(from.getTime() + 7 * DAY) };
};
/** Run i's week, shifted 13 h 37 min into the day: two partial days counted row by row. */
const offWeek = (run: number) => {
  const { from, to } = week(run);
  const shift = (13 * 60 + 37) * 60_000;
  return { from: new Date(from.getTime() + shift), to: new Date(to.getTime() + shift) };
};
const month = { from: DATA_FROM, to: new Date(DATA_FROM.getTime() + DATA_DAYS * DAY) };

interface Scenario {
  query: QueryResultRow['query'];
  scenario: string;
  limit: number;
  runs: number;
  targetMs: number;
  page(run: number): Promise<{ total: number; returned: number }>;
}

export async function benchQueries(
  pool: Pool,
  options: { sessions: number; calls: number; runs: number; wideRuns: number; budgetMs: number },
  progress: (line: string) => void,
): Promise<QueryBenchResult> {
  const { seconds: loadSeconds } = await loadQueryData(pool, options, progress);
  const rows = await measureQueries(pool, options, progress);
  return { sessions: options.sessions, calls: options.calls, loadSeconds, rows };
}

/** The scenarios, against data already loaded by loadQueryData. */
export async function measureQueries(
  pool: Pool,
  options: { runs: number; wideRuns: number; budgetMs: number; only?: string },
  progress: (line: string) => void,
): Promise<QueryResultRow[]> {
  const sessions =
    (limit: number, extra: (run: number) => Partial<SessionListFilter>) => async (run: number) => {
      const page = await listSessions(pool, { projectId: BIG_PROJECT, limit, offset: 0, ...extra(run) });
      return { total: page.total, returned: page.sessions.length };
    };
  const ledger = (limit: number, extra: (run: number) => Partial<LedgerFilter>) => async (run: number) => {
    const page = await listLedger(pool, {
      projectId: BIG_PROJECT,
      ...month,
      sort: { field: 'timestamp', direction: 'desc' },
      dataMode: 'summary',
      limit,
      offset: 0,
      ...extra(run),
    });
    return { total: page.total, returned: page.generations.length };
  };
  const { runs, wideRuns } = options;
  const scenarios: Scenario[] = [
    {
      query: 'listSessions',
      scenario: 'a week + environment=production + channel=web family',
      limit: 100,
      runs,
      targetMs: 50,
      page: sessions(100, (r) => ({
        ...week(r),
        environments: ['production'],
        channels: ['web', 'sdk_web', 'web_chat'],
      })),
    },
    {
      query: 'listSessions',
      scenario: 'a week from 13:37 to 13:37 + environment=production + channel=web family',
      limit: 100,
      runs,
      targetMs: 50,
      page: sessions(100, (r) => ({
        ...offWeek(r),
        environments: ['production'],
        channels: ['web', 'sdk_web', 'web_chat'],
      })),
    },
    {
      query: 'listSessions',
      scenario: 'a week + status=completed + containmentType=contained_resolved',
      limit: 100,
      runs,
      targetMs: 50,
      page: sessions(100, (r) => ({
        ...week(r),
        status: 'completed',
        containmentTypes: ['contained_resolved'],
      })),
    },
    {
      query: 'listSessions',
      scenario: 'a week + traceDimensions[campaign]=autumn',
      limit: 100,
      runs,
      targetMs: 50,
      page: sessions(100, (r) => ({ ...week(r), traceDimensions: { campaign: 'autumn' } })),
    },
    {
      query: 'listSessions',
      scenario: 'a week, no other filter',
      limit: 10_000,
      runs,
      targetMs: 500,
      page: sessions(10_000, week),
    },
    {
      query: 'listSessions',
      scenario: 'all 30 days, no filter (widest total)',
      limit: 100,
      runs: wideRuns,
      targetMs: 50,
      page: sessions(100, () => month),
    },
    // Sorted pages (sortBy, our extension): every key, both directions among them, target p99 < 100 ms.
    ...sortedScenarios(runs, wideRuns, sessions),
    {
      query: 'listLedger',
      scenario: 'a week + model=gpt-4o + status=success, by timestamp',
      limit: 100,
      runs,
      targetMs: 50,
      page: ledger(100, (r) => ({ ...week(r), models: ['gpt-4o'], status: 'success' })),
    },
    {
      query: 'listLedger',
      scenario: 'a week from 13:37 to 13:37 + model=gpt-4o + status=success, by timestamp',
      limit: 100,
      runs,
      targetMs: 50,
      page: ledger(100, (r) => ({ ...offWeek(r), models: ['gpt-4o'], status: 'success' })),
    },
    {
      query: 'listLedger',
      scenario: 'a week + environment=production + source=evals, by cost desc',
      limit: 100,
      runs,
      targetMs: 50,
      page: ledger(100, (r) => ({
        ...week(r),
        environments: ['production'],
        sources: ['evals'],
        sort: { field: 'cost', direction: 'desc' },
      })),
    },
    {
      query: 'listLedger',
      scenario: 'a week + 20 sessionIds, by latency desc',
      limit: 100,
      runs,
      targetMs: 50,
      page: ledger(100, (r) => ({
        ...week(r),
        // Sessions of the big project (s % 20 < 12), spread over the month.
        sessionIds: Array.from(
          { length: 20 },
          (_, i) =>
            `sess-${((r * 7919 + i * 50_021) % 1_000_000) - (((r * 7919 + i * 50_021) % 1_000_000) % 20)}`,
        ),
        sort: { field: 'latencyMs', direction: 'desc' },
      })),
    },
    {
      query: 'listLedger',
      scenario: 'a week, no other filter, by timestamp',
      limit: 10_000,
      runs,
      targetMs: 500,
      page: ledger(10_000, week),
    },
    {
      query: 'listLedger',
      scenario: 'all 30 days, no filter (widest total)',
      limit: 100,
      runs: wideRuns,
      targetMs: 50,
      page: ledger(100, () => ({})),
    },
  ];

  const rows: QueryResultRow[] = [];
  for (const s of scenarios) {
    if (options.only && !`${s.query} ${s.scenario}`.includes(options.only)) continue;
    let last = { total: 0, returned: 0 };
    const latency = await timeRuns(
      s.runs,
      async (run) => {
        last = await s.page(run);
      },
      { budgetMs: options.budgetMs },
    );
    const row = {
      query: s.query,
      scenario: s.scenario,
      limit: s.limit,
      ...last,
      latency,
      targetMs: s.targetMs,
    };
    progress(
      `  ${s.query} ${s.scenario} (limit ${s.limit}): p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, total ${last.total}`,
    );
    rows.push(row);
  }
  return rows;
}

type SessionsPage = (
  limit: number,
  extra: (run: number) => Partial<SessionListFilter>,
) => (run: number) => Promise<{ total: number; returned: number }>;

/** One sorted-page scenario per sort key (and a narrow filter, where the planner sorts the few matches). */
function sortedScenarios(runs: number, wideRuns: number, sessions: SessionsPage): Scenario[] {
  const sorted = (
    scenario: string,
    field: NonNullable<SessionListFilter['sort']>['field'],
    direction: 'asc' | 'desc',
    extra: (run: number) => Partial<SessionListFilter>,
    wide = false,
  ): Scenario => ({
    query: 'listSessions',
    scenario,
    limit: 100,
    runs: wide ? wideRuns : runs,
    targetMs: 100,
    page: sessions(100, (r) => ({ ...extra(r), sort: { field, direction } })),
  });
  return [
    sorted('a week, sortBy=estimatedCost desc', 'estimatedCost', 'desc', week),
    sorted('a week + environment=production, sortBy=lastActivityAt asc', 'lastActivityAt', 'asc', (r) => ({
      ...week(r),
      environments: ['production'],
    })),
    sorted('a week, sortBy=lastActivityAt desc', 'lastActivityAt', 'desc', week),
    sorted('a week, sortBy=totalTokens asc', 'totalTokens', 'asc', week),
    sorted('all 30 days, sortBy=messageCount desc (widest sort)', 'messageCount', 'desc', () => month, true),
    sorted('a week, sortBy=createdAt asc', 'createdAt', 'asc', week),
    sorted(
      'a week + environment=staging + status=escalated, sortBy=estimatedCost asc (narrow filter)',
      'estimatedCost',
      'asc',
      (r) => ({ ...week(r), environments: ['staging'], status: 'escalated' }),
    ),
  ];
}
