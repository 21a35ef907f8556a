import { useMemo, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { Freshness } from '../components/Freshness.js';
import { Pager } from '../components/Pager.js';
import { SortHeader } from '../components/SortHeader.js';
import { useApiData } from '../components/useApiData.js';
import { useSession } from '../context.js';
import { href, navigate } from '../router.js';
import {
  CHANNEL_SUGGESTIONS,
  CONTAINMENT_TYPES,
  ENVIRONMENTS,
  effectiveWindow,
  filtersToApiQuery,
  filtersToQuery,
  formatDimensions,
  PAGE_SIZES,
  parseDimensions,
  parseFilters,
  parseList,
  type SessionFilters,
  type SortField,
  STATUSES,
} from '../sessions/filters.js';
import { formatCost, formatCount, formatMs, formatTime, shortId } from '../sessions/format.js';
import type { SessionsPage } from '../sessions/types.js';
import { Badge } from '../sessions/ui.js';

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
  const rows = page.data?.sessions ?? [];
  const open = (sessionId: string) => navigate(href(['p', projectId, 'sessions', sessionId]));

  return (
    <section aria-labelledby="sessions-title">
      <div class="screen-head">
        <h1 id="sessions-title">Sessions</h1>
        {page.data ? <Freshness value={page.data.freshness} /> : null}
        {needsKey ? null : <OpenById projectId={projectId} compact />}
      </div>
      {needsKey ? null : (
        <FilterForm
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
        <div class="panel table-panel">
          <div class="table-scroll">
            <table class="data sessions-table" aria-busy={page.loading} aria-describedby="sessions-caption">
              <caption id="sessions-caption" class="visually-hidden">
                Sessions, sorted by {filters.sortBy}{' '}
                {filters.sortOrder === 'asc' ? 'ascending' : 'descending'}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Session</th>
                  <SortHeader field="createdAt" label="Started" {...sortProps(filters, onSort)} />
                  <SortHeader field="lastActivityAt" label="Last activity" {...sortProps(filters, onSort)} />
                  <th scope="col">Status</th>
                  <th scope="col">Containment</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Env</th>
                  <SortHeader field="messageCount" label="Msgs" numeric {...sortProps(filters, onSort)} />
                  <th scope="col" class="num">
                    Duration
                  </th>
                  <SortHeader field="totalTokens" label="Tokens" numeric {...sortProps(filters, onSort)} />
                  <SortHeader field="estimatedCost" label="Cost" numeric {...sortProps(filters, onSort)} />
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr
                    key={s.id}
                    class="clickable"
                    onClick={(e) => (e.target as HTMLElement).closest('a') || open(s.id)}
                  >
                    <td class="mono">
                      <a href={href(['p', projectId, 'sessions', s.id])} title={s.id}>
                        {shortId(s.id, 26)}
                      </a>
                      {s.isTest ? <span class="tag">test</span> : null}
                    </td>
                    <td title={s.createdAt}>{formatTime(s.createdAt).slice(0, 16)}</td>
                    <td title={s.lastActivityAt}>{formatTime(s.lastActivityAt).slice(0, 16)}</td>
                    <td>
                      <Badge kind="status" value={s.status} />
                    </td>
                    <td>
                      <Badge kind="containment" value={s.containmentType} />
                    </td>
                    <td>{s.channel}</td>
                    <td>{s.environment}</td>
                    <td class="num">{formatCount(s.messageCount.total)}</td>
                    <td class="num">{formatMs(s.durationMs)}</td>
                    <td class="num">{formatCount(s.tokenCount.totalTokens)}</td>
                    <td class="num">{formatCost(s.estimatedCost)}</td>
                  </tr>
                ))}
                {page.data && rows.length === 0 ? (
                  <tr>
                    <td colSpan={11} class="empty">
                      No session matches these filters in this window.
                    </td>
                  </tr>
                ) : null}
                {!page.data && page.loading ? (
                  <tr>
                    <td colSpan={11} class="empty">
                      Loading…
                    </td>
                  </tr>
                ) : null}
              </tbody>
            </table>
          </div>
          {page.data ? (
            <Pager
              label="Session pages"
              offset={filters.offset}
              rows={rows.length}
              total={page.data.total}
              hasMore={page.data.hasMore}
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
                go({ ...filters, offset: filters.offset + rows.length });
              }}
            />
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function sortProps(filters: SessionFilters, onSort: (f: SortField, o: 'asc' | 'desc') => void) {
  return { sortBy: filters.sortBy, sortOrder: filters.sortOrder, onSort };
}

/** Opens a session directly (also the way in without an analytics key). */
export function OpenById({ projectId, compact = false }: { projectId: string; compact?: boolean }) {
  const [id, setId] = useState('');
  return (
    <form
      class={compact ? 'open-by-id compact' : 'open-by-id'}
      aria-label="Open a session by id"
      onSubmit={(e) => {
        e.preventDefault();
        const v = id.trim();
        if (v) navigate(href(['p', projectId, 'sessions', v]));
      }}
    >
      <label class="inline" for={compact ? 'open-id-compact' : 'open-id'}>
        Session id
      </label>
      <input
        id={compact ? 'open-id-compact' : 'open-id'}
        value={id}
        onInput={(e) => setId((e.target as HTMLInputElement).value)}
        placeholder="sess_… or any session id"
        autoComplete="off"
        spellcheck={false}
      />
      <button type="submit" class="secondary" disabled={!id.trim()}>
        Open
      </button>
    </form>
  );
}

function FilterForm({ filters, onApply }: { filters: SessionFilters; onApply(f: SessionFilters): void }) {
  const window = effectiveWindow(filters, new Date());
  const [draft, setDraft] = useState(() => toDraft(filters, window));
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const toggle = (list: string[], v: string) =>
    list.includes(v) ? list.filter((x) => x !== v) : [...list, v];
  return (
    <form
      class="panel filters"
      aria-label="Session filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(fromDraft(draft, filters));
      }}
    >
      <div class="filter-row">
        <div class="field">
          <label for="f-from">From (UTC)</label>
          <input
            id="f-from"
            type="date"
            value={draft.from}
            onInput={(e) => set({ from: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="f-to">To (UTC, inclusive)</label>
          <input
            id="f-to"
            type="date"
            value={draft.to}
            onInput={(e) => set({ to: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="f-status">Status</label>
          <select
            id="f-status"
            value={draft.status}
            onChange={(e) => set({ status: (e.target as HTMLSelectElement).value })}
          >
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-channel">Channel</label>
          <input
            id="f-channel"
            list="f-channel-list"
            value={draft.channel}
            placeholder="web, voice, …"
            onInput={(e) => set({ channel: (e.target as HTMLInputElement).value })}
          />
          <datalist id="f-channel-list">
            {CHANNEL_SUGGESTIONS.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
        </div>
        <div class="field">
          <label for="f-caller">Caller number</label>
          <input
            id="f-caller"
            value={draft.callerNumber}
            placeholder="+44 20 …"
            autoComplete="off"
            onInput={(e) => set({ callerNumber: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="f-uid">Channel user id</label>
          <input
            id="f-uid"
            value={draft.channelUId}
            onInput={(e) => set({ channelUId: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="f-dims">Trace dimensions</label>
          <input
            id="f-dims"
            value={draft.dimensions}
            placeholder="plan=pro, region=eu"
            onInput={(e) => set({ dimensions: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field">
          <label for="f-limit">Rows</label>
          <select
            id="f-limit"
            value={draft.limit}
            onChange={(e) => set({ limit: (e.target as HTMLSelectElement).value })}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div class="filter-actions">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            class="secondary"
            onClick={() => onApply({ ...parseFilters(new URLSearchParams()), limit: filters.limit })}
          >
            Reset
          </button>
        </div>
      </div>
      <div class="filter-row">
        <fieldset class="checks">
          <legend>Containment</legend>
          {CONTAINMENT_TYPES.map((c) => (
            <label key={c} class="inline">
              <input
                type="checkbox"
                checked={draft.containmentType.includes(c)}
                onChange={() => set({ containmentType: toggle(draft.containmentType, c) })}
              />
              {c}
            </label>
          ))}
        </fieldset>
        <fieldset class="checks">
          <legend>Environment</legend>
          {ENVIRONMENTS.map((env) => (
            <label key={env} class="inline">
              <input
                type="checkbox"
                checked={draft.environment.includes(env)}
                onChange={() => set({ environment: toggle(draft.environment, env) })}
              />
              {env}
            </label>
          ))}
        </fieldset>
      </div>
    </form>
  );
}

interface Draft {
  from: string;
  to: string;
  status: string;
  channel: string;
  callerNumber: string;
  channelUId: string;
  dimensions: string;
  limit: string;
  containmentType: string[];
  environment: string[];
}

function toDraft(f: SessionFilters, window: { from: string; to: string }): Draft {
  return {
    from: window.from,
    to: window.to,
    status: f.status ?? '',
    channel: f.channel.join(', '),
    callerNumber: f.callerNumber.join(', '),
    channelUId: f.channelUId.join(', '),
    dimensions: formatDimensions(f.dimensions),
    limit: String(f.limit),
    containmentType: [...f.containmentType],
    environment: [...f.environment],
  };
}

function fromDraft(d: Draft, current: SessionFilters): SessionFilters {
  const defaults = effectiveWindow({ ...current, from: null, to: null }, new Date());
  // Dates equal to the rolling default stay out of the address, so a shared link keeps rolling.
  const to = d.to && d.to !== defaults.to ? d.to : null;
  const from = d.from && !(to === null && d.from === defaults.from) ? d.from : null;
  return {
    ...current,
    from,
    to,
    status: d.status || null,
    channel: parseList(d.channel),
    callerNumber: parseList(d.callerNumber),
    channelUId: parseList(d.channelUId),
    dimensions: parseDimensions(d.dimensions),
    limit: Number(d.limit) || current.limit,
    containmentType: d.containmentType,
    environment: d.environment,
  };
}
