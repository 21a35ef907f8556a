import { useMemo, useRef } from 'preact/hooks';
import { spanSummary } from './agentSpans.js';
import { formatMs, formatTick } from './format.js';
import { type SpanNode, visibleRows } from './spanTree.js';
import type { TraceEvent } from './types.js';
import { barOf, ticks, timeRange } from './waterfall.js';

/**
 * The trace as a span waterfall: a table whose first column is the span tree (toggle buttons with
 * aria-expanded) and whose last column draws each span's timing bar relative to the first start.
 * Keys on a span's name button: ↑/↓ move between rows, → expands (or enters the first child),
 * ← collapses (or goes to the parent), Enter/Space selects.
 */
export function Waterfall({
  events,
  roots,
  expanded,
  onExpandedChange,
  selectedId,
  onSelect,
}: {
  events: readonly TraceEvent[];
  /** The span tree of `events` (buildSpanTree), built once by the screen. */
  roots: readonly SpanNode<TraceEvent>[];
  expanded: ReadonlySet<string>;
  onExpandedChange(next: Set<string>): void;
  selectedId: string | null;
  onSelect(eventId: string): void;
}) {
  const range = useMemo(() => timeRange(events), [events]);
  const rows = visibleRows(roots, expanded);
  const body = useRef<HTMLTableSectionElement>(null);

  const setOpen = (id: string, open: boolean) => {
    const next = new Set(expanded);
    if (open) next.add(id);
    else next.delete(id);
    onExpandedChange(next);
  };
  const focusRow = (index: number) => {
    const el = body.current?.querySelector<HTMLButtonElement>(`button[data-row="${index}"]`);
    el?.focus();
  };
  const onKey = (e: KeyboardEvent, index: number) => {
    const row = rows[index];
    if (!row) return;
    const id = row.node.event.eventId;
    if (e.key === 'ArrowDown') focusRow(Math.min(rows.length - 1, index + 1));
    else if (e.key === 'ArrowUp') focusRow(Math.max(0, index - 1));
    else if (e.key === 'Home') focusRow(0);
    else if (e.key === 'End') focusRow(rows.length - 1);
    else if (e.key === 'ArrowRight') {
      if (row.hasChildren && !row.expanded) setOpen(id, true);
      else if (row.expanded) focusRow(index + 1);
    } else if (e.key === 'ArrowLeft') {
      if (row.expanded) setOpen(id, false);
      else {
        for (let i = index - 1; i >= 0; i--) {
          if ((rows[i]?.node.depth ?? 0) < row.node.depth) {
            focusRow(i);
            break;
          }
        }
      }
    } else return;
    e.preventDefault();
  };

  if (!range) return <p class="muted">No trace event was recorded in this session.</p>;
  const axis = ticks(range.spanMs, 4);
  return (
    <div class="waterfall-wrap">
      <table class="waterfall" aria-label="Trace waterfall">
        <colgroup>
          <col class="wf-name" />
          <col class="wf-type" />
          <col class="wf-dur" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col">Type</th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col" class="wf-axis-head">
              <span class="visually-hidden">
                Timeline from the first span start ({formatMs(range.spanMs)} in all)
              </span>
              <div class="wf-axis" aria-hidden="true">
                {axis.map((t) => (
                  <span key={t} class="wf-tick" style={{ left: `${(t / range.spanMs) * 100}%` }}>
                    {formatTick(t)}
                  </span>
                ))}
              </div>
            </th>
          </tr>
        </thead>
        <tbody ref={body}>
          {rows.map((row, index) => {
            const e = row.node.event;
            const bar = barOf(e, range);
            const selected = e.eventId === selectedId;
            const label = spanLabel(row.node);
            return (
              <tr
                key={e.eventId}
                class={`wf-row type-${e.eventType}${selected ? ' selected' : ''}${e.status === 'error' || e.status === 'blocked' ? ' failed' : ''}`}
              >
                <td class="wf-name-cell">
                  <div class="wf-name-inner" style={{ paddingLeft: `${row.node.depth * 14}px` }}>
                    {row.hasChildren ? (
                      <button
                        type="button"
                        class="wf-toggle"
                        aria-expanded={row.expanded}
                        aria-label={`${row.expanded ? 'Collapse' : 'Expand'} ${label}`}
                        tabIndex={-1}
                        onClick={() => setOpen(e.eventId, !row.expanded)}
                      >
                        {row.expanded ? '▾' : '▸'}
                      </button>
                    ) : (
                      <span class="wf-toggle-space" aria-hidden="true" />
                    )}
                    <button
                      type="button"
                      class="wf-select"
                      data-row={index}
                      aria-pressed={selected}
                      aria-expanded={row.hasChildren ? row.expanded : undefined}
                      title={`${label} (${e.spanId})`}
                      onClick={() => onSelect(e.eventId)}
                      onKeyDown={(ev) => onKey(ev as unknown as KeyboardEvent, index)}
                    >
                      {label}
                    </button>
                    {spanSummary(e) === null ? null : <span class="wf-summary muted">{spanSummary(e)}</span>}
                    {row.hasChildren ? <span class="wf-count">{row.node.children.length}</span> : null}
                    {row.node.orphan ? (
                      <span class="tag warn" title="Its parent span is not in this session">
                        orphan
                      </span>
                    ) : null}
                    {row.node.cycle ? (
                      <span class="tag warn" title="Its parent spans form a cycle">
                        cycle
                      </span>
                    ) : null}
                  </div>
                </td>
                <td>
                  <span class={`type-pill type-${e.eventType}`}>{e.eventType}</span>
                </td>
                <td class="num nowrap">{formatMs(e.durationMs)}</td>
                <td class="wf-bar-cell">
                  <div class="wf-track">
                    <div
                      class={`wf-bar type-${e.eventType}${bar.instant ? ' instant' : ''}`}
                      style={{ left: `${bar.leftPct}%`, width: `${bar.widthPct}%` }}
                      title={`+${formatMs(bar.offsetMs)}, ${formatMs(e.durationMs)}`}
                    />
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function spanLabel(node: SpanNode<TraceEvent>): string {
  const e = node.event;
  if (e.eventType === 'llm_call' && e.llmCall?.model)
    return e.name && e.name !== e.llmCall.model ? `${e.name} · ${e.llmCall.model}` : e.llmCall.model;
  return e.name ?? e.eventType;
}
