import { type ComponentChildren, Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { formatCost, formatInt, formatMs, formatUtc } from '../charts/format.js';
import { Pager } from '../components/Pager.js';
import { SortHeader } from '../components/SortHeader.js';
import { href } from '../router.js';
import { type LedgerView, PAGE_SIZE, type SortBy } from './filters.js';
import type { Generation, LedgerPage } from './types.js';

const COLUMNS = 10;

function Detail({
  g,
  projectId,
  view,
  onFull,
}: {
  g: Generation;
  projectId: string;
  view: LedgerView;
  onFull(): void;
}) {
  const items: Array<[string, ComponentChildren]> = [
    ['Call id', <code key="c">{g.callId}</code>],
    ['Record id', <code key="i">{g.id}</code>],
    ['Event id', <code key="e">{g.eventId}</code>],
    ['Trace id', g.traceId ? <code key="t">{g.traceId}</code> : '–'],
    [
      'Session',
      g.sessionId ? (
        <a key="s" href={href(['p', projectId, 'sessions', g.sessionId])}>
          {g.sessionId}
        </a>
      ) : (
        'none (design-time call)'
      ),
    ],
    ['Started', formatUtc(g.timestamp)],
    ['Environment', g.environment || '–'],
    ['Channel', g.channel ? `${g.channel}${g.channelType ? ` (${g.channelType})` : ''}` : '–'],
    ['Source', `${g.sourceLabel} · ${g.sourceSubtypeLabel}`],
    ['Source id', g.sourceId || '–'],
    ['Provider status', g.statusCode === 0 ? '0 (no response)' : String(g.statusCode)],
    ['Latency', formatMs(g.latencyMs)],
    ['Time to first token', `${formatMs(g.timeToFirstTokenMs)}${g.streamingUsed ? ' (streamed)' : ''}`],
    [
      'Tokens',
      `${formatInt(g.inputTokens)} in (${formatInt(g.cachedTokens)} cached) · ${formatInt(g.outputTokens)} out (${formatInt(
        g.completionTokens,
      )} completion, ${formatInt(g.reasoningTokens)} reasoning) · ${formatInt(g.totalTokens)} total`,
    ],
    ['Cost', formatCost(g.cost)],
    ['Payload', g.payloadState.replace('_', ' ')],
  ];
  return (
    <div class="call-detail">
      <dl class="kv">
        {items.map(([k, v]) => (
          <Fragment key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </Fragment>
        ))}
      </dl>
      {g.payload ? (
        <div class="payload">
          <section aria-label="Prompt">
            <h3>Prompt</h3>
            <pre>{JSON.stringify(g.payload.prompt, null, 2)}</pre>
          </section>
          <section aria-label="Response">
            <h3>Response</h3>
            <pre>{JSON.stringify(g.payload.response, null, 2)}</pre>
          </section>
        </div>
      ) : g.payloadState === 'available' && !view.full ? (
        <p class="help">
          The prompt and response are stored.{' '}
          <button type="button" class="link" onClick={onFull}>
            Include payloads
          </button>
        </p>
      ) : g.payloadState === 'too_large' ? (
        <p class="help">The payload is over 960 KiB: it is kept in the event log only.</p>
      ) : null}
    </div>
  );
}

/** The ledger's call list: sortable headers (aria-sort), expandable rows, paging by hasMore. */
export function LedgerTable({
  page,
  loading,
  projectId,
  view,
  onSort,
  onOffset,
  onFull,
}: {
  page: LedgerPage | null;
  loading: boolean;
  projectId: string;
  view: LedgerView;
  onSort(field: SortBy): void;
  onOffset(offset: number): void;
  onFull(): void;
}) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (id: string) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };
  const rows = page?.generations ?? [];
  const sort = { sortBy: view.sortBy, sortOrder: view.sortOrder, onSort };
  const first = rows.length ? view.offset + 1 : 0;
  const last = view.offset + rows.length;
  return (
    <section class="panel ledger-calls" aria-labelledby="ledger-calls-title">
      <div class="panel-head">
        <h2 id="ledger-calls-title">Calls</h2>
        <span class="help" aria-live="polite">
          {page
            ? page.total === 0
              ? 'No call matches.'
              : `${formatInt(first)}–${formatInt(last)} of ${formatInt(page.total)}`
            : loading
              ? 'Loading…'
              : ''}
        </span>
      </div>
      <div class="table-scroll">
        <table class="dense" aria-labelledby="ledger-calls-title" aria-busy={loading}>
          <thead>
            <tr>
              <th scope="col" class="expand-col">
                <span class="visually-hidden">Details</span>
              </th>
              <SortHeader field="timestamp" label="Time (UTC)" {...sort} />
              <th scope="col">Model</th>
              <th scope="col">Provider</th>
              <th scope="col">Agent</th>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
              <SortHeader field="totalTokens" label="Tokens" numeric {...sort} />
              <SortHeader field="latencyMs" label="Latency" numeric {...sort} />
              <SortHeader field="cost" label="Cost" numeric {...sort} />
            </tr>
          </thead>
          <tbody>
            {rows.map((g) => {
              const expanded = open.has(g.id);
              const detailId = `call-${g.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
              return (
                <Fragment key={g.id}>
                  <tr class={expanded ? 'expanded' : undefined}>
                    <td class="expand-col">
                      <button
                        type="button"
                        class="expand"
                        aria-expanded={expanded}
                        aria-controls={expanded ? detailId : undefined}
                        onClick={() => toggle(g.id)}
                      >
                        <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
                        <span class="visually-hidden">{`Details of call ${g.callId}`}</span>
                      </button>
                    </td>
                    <td class="nowrap mono">{formatUtc(g.timestamp)}</td>
                    <td class="model">{g.model}</td>
                    <td>{g.provider}</td>
                    <td>{g.agentName}</td>
                    <td title={g.sourceSubtypeLabel}>{g.sourceLabel}</td>
                    <td>
                      <span class={`badge ${g.status === 'success' ? 'ok' : 'bad'}`}>{g.status}</span>
                    </td>
                    <td class="num">{formatInt(g.totalTokens)}</td>
                    <td class="num">{formatMs(g.latencyMs)}</td>
                    <td class="num">{formatCost(g.cost)}</td>
                  </tr>
                  {expanded ? (
                    <tr class="detail-row">
                      <td colSpan={COLUMNS} id={detailId}>
                        <Detail g={g} projectId={projectId} view={view} onFull={onFull} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <Pager
        label="Calls pages"
        previousLabel="Previous page"
        nextLabel="Next page"
        showRange={false}
        busy={loading}
        offset={view.offset}
        rows={rows.length}
        total={page?.total ?? null}
        hasMore={!!page?.hasMore}
        onPrevious={
          view.offset === 0 ? null : () => onOffset(Math.max(0, view.offset - (page?.limit ?? PAGE_SIZE)))
        }
        onNext={() => onOffset(view.offset + rows.length)}
      />
    </section>
  );
}
