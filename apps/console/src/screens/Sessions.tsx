import { useMemo, useRef } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { Freshness } from '../components/Freshness.js';
import { useApiData } from '../components/useApiData.js';
import { useSession } from '../context.js';
import { href, navigate } from '../router.js';
import {
  filtersToApiQuery,
  filtersToQuery,
  parseFilters,
  type SessionFilters,
  type SortField,
} from '../sessions/filters.js';
import { OpenById } from '../sessions/OpenById.js';
import { SessionFilterForm } from '../sessions/SessionFilterForm.js';
import { SessionsTable } from '../sessions/SessionsTable.js';
import type { SessionsPage } from '../sessions/types.js';

export function Sessions({ projectId, query }: { projectId: string; query: URLSearchParams }) {
  const { api } = useSession();
  const filters = useMemo(() => parseFilters(query), [query.toString()]);
  const go = (f: SessionFilters) => navigate(href(['p', projectId, 'sessions'], filtersToQuery(f)));
  // Offsets visited before this one, so Previous returns exactly to the last page shown.
  const history = useRef<number[]>([]);

  const apiQuery = useMemo(() => filtersToApiQuery(filters, new Date()), [filters]);
  const key = `${projectId}|${JSON.stringify(apiQuery)}`;
  const page = useApiData<SessionsPage>(key, (signal) =>
    api.get<SessionsPage>(
      `/api/public/analytics/projects/${encodeURIComponent(projectId)}/sessions`,
      apiQuery,
      { signal },
    ),
  );
  const needsKey = page.error instanceof ApiError && page.error.needsApiKey;

  const onSort = (sortBy: SortField, sortOrder: 'asc' | 'desc') => {
    history.current = [];
    go({ ...filters, sortBy, sortOrder, offset: 0 });
  };
  // Rows on the page shown, where Next continues from.
  const shown = page.data?.sessions.length ?? 0;

  return (
    <section aria-labelledby="sessions-title">
      <div class="screen-head">
        <h1 id="sessions-title">Sessions</h1>
        {page.data ? <Freshness value={page.data.freshness} /> : null}
        {needsKey ? null : <OpenById projectId={projectId} compact />}
      </div>
      {needsKey ? null : (
        <SessionFilterForm
          key={query.toString()}
          filters={filters}
          onApply={(f) => {
            history.current = [];
            go({ ...f, offset: 0 });
          }}
        />
      )}
      {needsKey ? (
        <div class="panel notice-panel" role="alert">
          <h2>This screen needs a platform API key</h2>
          <p>
            The session list comes from the analytics API, which accepts only a platform API key (
            <code>plat_…</code>) with the <code>analytics.read</code> scope, not a user sign-in. Sign in with
            such a key to browse sessions, or open one session by its id: its transcript and trace accept your
            sign-in.
          </p>
          <p class="help">
            Server answer: {(page.error as ApiError).code ?? `HTTP ${(page.error as ApiError).status}`}
            {(page.error as ApiError).requestId ? ` (request ${(page.error as ApiError).requestId})` : ''}
          </p>
          <OpenById projectId={projectId} />
        </div>
      ) : page.error ? (
        <ErrorBox error={page.error} what="Loading sessions" />
      ) : null}
      {!needsKey ? (
        <SessionsTable
          projectId={projectId}
          filters={filters}
          data={page.data}
          loading={page.loading}
          onSort={onSort}
          onPrevious={
            filters.offset > 0
              ? () =>
                  go({
                    ...filters,
                    offset: history.current.pop() ?? Math.max(0, filters.offset - filters.limit),
                  })
              : null
          }
          onNext={() => {
            history.current.push(filters.offset);
            go({ ...filters, offset: filters.offset + shown });
          }}
        />
      ) : null}
    </section>
  );
}
