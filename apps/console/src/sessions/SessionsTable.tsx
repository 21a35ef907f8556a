import { formatInt, formatUtc } from '../charts/format.js';
import { Pager } from '../components/Pager.js';
import { SortHeader } from '../components/SortHeader.js';
import { href, navigate } from '../router.js';
import type { SessionFilters, SortField } from './filters.js';
import { DASH, formatCost, formatMs, shortId } from './format.js';
import type { SessionsPage } from './types.js';
import { Badge } from './ui.js';

/** One page of sessions, sortable by the columns the API sorts on, with its pager. */
export function SessionsTable({
  projectId,
  filters,
  data,
  loading,
  onSort,
  onPrevious,
  onNext,
}: {
  projectId: string;
  filters: SessionFilters;
  data: SessionsPage | null;
  loading: boolean;
  onSort(sortBy: SortField, sortOrder: 'asc' | 'desc'): void;
  /** Null on the first page. */
  onPrevious: (() => void) | null;
  onNext(): void;
}) {
  const rows = data?.sessions ?? [];
  const open = (sessionId: string) => navigate(href(['p', projectId, 'sessions', sessionId]));
  return (
    <div class="panel table-panel">
      <div class="table-scroll">
        <table class="data sessions-table" aria-busy={loading} aria-describedby="sessions-caption">
          <caption id="sessions-caption" class="visually-hidden">
            Sessions, sorted by {filters.sortBy} {filters.sortOrder === 'asc' ? 'ascending' : 'descending'}
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
                <td title={s.createdAt}>{formatUtc(s.createdAt, false, DASH)}</td>
                <td title={s.lastActivityAt}>{formatUtc(s.lastActivityAt, false, DASH)}</td>
                <td>
                  <Badge kind="status" value={s.status} />
                </td>
                <td>
                  <Badge kind="containment" value={s.containmentType} />
                </td>
                <td>
                  {s.channel}
                  {/* The latest call's status, for sessions with voice calls (docs/api.md `voiceCalls`). */}
                  {s.voiceCalls && s.voiceCalls.length > 0 ? (
                    <span class="tag" title={s.voiceCalls.map((c) => `${c.callId}: ${c.status}`).join('\n')}>
                      {s.voiceCalls.length === 1 ? 'call' : `${s.voiceCalls.length} calls`}{' '}
                      {s.voiceCalls.at(-1)?.status}
                    </span>
                  ) : null}
                </td>
                <td>{s.environment}</td>
                <td class="num">{formatInt(s.messageCount.total, DASH)}</td>
                <td class="num">{formatMs(s.durationMs)}</td>
                <td class="num">{formatInt(s.tokenCount.totalTokens, DASH)}</td>
                <td class="num">{formatCost(s.estimatedCost)}</td>
              </tr>
            ))}
            {data && rows.length === 0 ? (
              <tr>
                <td colSpan={11} class="empty">
                  No session matches these filters in this window.
                </td>
              </tr>
            ) : null}
            {!data && loading ? (
              <tr>
                <td colSpan={11} class="empty">
                  Loading…
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      {data ? (
        <Pager
          label="Session pages"
          offset={filters.offset}
          rows={rows.length}
          total={data.total}
          hasMore={data.hasMore}
          onPrevious={onPrevious}
          onNext={onNext}
        />
      ) : null}
    </div>
  );
}

function sortProps(filters: SessionFilters, onSort: (f: SortField, o: 'asc' | 'desc') => void) {
  return { sortBy: filters.sortBy, sortOrder: filters.sortOrder, onSort };
}
