import { useMemo, useState } from 'preact/hooks';
import '../ledger/ledger.css';
import { formatUtc } from '../charts/format.js';
import { ApiProblem } from '../components/ApiProblem.js';
import { useApiData } from '../components/useApiData.js';
import { useSession } from '../context.js';
import { explainAnalyticsError } from '../ledger/explain.js';
import {
  type LedgerView,
  LIST_FILTERS,
  type ListFilter,
  ledgerApiQuery,
  ledgerHashQuery,
  nextSort,
  parseLedgerQuery,
  resolveWindow,
  statsApiQuery,
} from '../ledger/filters.js';
import { ChartControls, LedgerCharts } from '../ledger/LedgerCharts.js';
import { LedgerFilters } from '../ledger/LedgerFilters.js';
import { LedgerTable } from '../ledger/LedgerTable.js';
import type { LedgerPage, LedgerStats } from '../ledger/types.js';
import { href, navigate } from '../router.js';

/**
 * The LLM call ledger of one project: filters (in the hash query), charts of cost, tokens and
 * latency over time, and the calls themselves. Reads GET …/llm-ledger and …/llm-ledger/stats with a
 * platform API key (analytics.read).
 */
export function Ledger({ projectId, query }: { projectId: string; query: URLSearchParams }) {
  const { api } = useSession();
  // The ledger's API takes platform API keys only: with a user JWT, ask nothing (it would be a 403).
  const withKey = api.credential.kind === 'api_key';
  const queryKey = query.toString();
  const view = useMemo(() => parseLedgerQuery(query), [queryKey]);
  const [now, setNow] = useState(() => new Date());
  // Refresh asks again even within the same minute (the window would not change).
  const [tick, setTick] = useState(0);
  const win = useMemo(() => resolveWindow(view, now), [view, now]);
  const base = `/api/public/analytics/projects/${encodeURIComponent(projectId)}/llm-ledger`;

  const update = (patch: Partial<LedgerView>) =>
    navigate(href(['p', projectId, 'ledger'], ledgerHashQuery({ ...view, ...patch })));

  const pageQuery = ledgerApiQuery(view, win);
  const statsQuery = statsApiQuery(view, win);
  const page = useApiData(
    withKey ? JSON.stringify([base, pageQuery, tick]) : null,
    (signal) => api.get<LedgerPage>(base, pageQuery, { signal }),
    { keepStale: true },
  );
  const stats = useApiData(
    withKey ? JSON.stringify([base, statsQuery, tick]) : null,
    (signal) => api.get<LedgerStats>(`${base}/stats`, statsQuery, { signal }),
    { keepStale: true },
  );

  const suggestions = useMemo(() => {
    const out: Partial<Record<ListFilter, string[]>> = {};
    const add = (name: ListFilter, v: string | null | undefined) => {
      if (!v) return;
      const list = out[name] ?? [];
      if (!list.includes(v)) list.push(v);
      out[name] = list;
    };
    for (const g of page.data?.generations ?? []) {
      add('model', g.model);
      add('provider', g.provider);
      add('source', g.source);
      add('agentName', g.agentName);
      add('channel', g.channel);
      add('environment', g.environment);
    }
    const groupBy = stats.data?.groupBy;
    if (groupBy) for (const t of stats.data?.totals ?? []) if (t.key !== 'other') add(groupBy, t.key);
    for (const name of LIST_FILTERS) out[name]?.sort();
    return out;
  }, [page.data, stats.data]);

  const freshness = page.data?.freshness ?? stats.data?.freshness;
  return (
    <section class="ledger" aria-labelledby="ledger-title">
      <div class="screen-head">
        <h1 id="ledger-title">LLM ledger</h1>
        <span class="help">
          {`${formatUtc(win.fromDate, false)} – ${formatUtc(win.toDate, false)} UTC`}
          {freshness?.recordedAt ? ` · data as of ${formatUtc(freshness.recordedAt)}` : ''}
        </span>
        <button
          type="button"
          class="secondary small"
          onClick={() => {
            setNow(new Date());
            setTick(tick + 1);
          }}
        >
          Refresh
        </button>
      </div>
      {!withKey ? (
        <p class="notice">
          You are signed in with a user token. The ledger's API accepts only a platform API key (
          <code>plat_…</code>) with the scope <code>analytics.read</code>: sign in with one to see this
          screen.
        </p>
      ) : null}
      <LedgerFilters view={view} suggestions={suggestions} onApply={update} />

      {withKey ? (
        <>
          <section class="panel" aria-labelledby="ledger-charts-title">
            <div class="panel-head">
              <h2 id="ledger-charts-title">Over time</h2>
              {stats.data ? <span class="help">{`per ${stats.data.bucket}`}</span> : null}
              <ChartControls view={view} onChange={(patch) => update(patch)} />
            </div>
            {stats.error ? (
              <ApiProblem error={stats.error} title="Charts unavailable" explain={explainAnalyticsError} />
            ) : stats.data ? (
              <div aria-busy={stats.loading}>
                <LedgerCharts stats={stats.data} />
              </div>
            ) : (
              <p class="loading">Loading charts…</p>
            )}
          </section>

          {page.error ? (
            <ApiProblem error={page.error} title="Calls unavailable" explain={explainAnalyticsError} />
          ) : (
            <LedgerTable
              page={page.data}
              loading={page.loading}
              projectId={projectId}
              view={view}
              onSort={(field) => update(nextSort(view, field))}
              onOffset={(offset) => update({ offset })}
              onFull={() => update({ full: true })}
            />
          )}
        </>
      ) : null}
    </section>
  );
}
