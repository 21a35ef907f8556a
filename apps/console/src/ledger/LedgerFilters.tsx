import { useEffect, useState } from 'preact/hooks';
import {
  DEFAULT_VIEW,
  type LedgerView,
  LIST_FILTERS,
  type ListFilter,
  listValues,
  RANGES,
  type Range,
  type StatusFilter,
} from './filters.js';

const RANGE_LABELS: Record<Range, string> = {
  '1h': 'Last hour',
  '6h': 'Last 6 hours',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  custom: 'Custom (UTC)',
};

const FILTER_LABELS: Record<ListFilter, string> = {
  model: 'Model',
  provider: 'Provider',
  source: 'Source',
  agentName: 'Agent',
  channel: 'Channel',
  environment: 'Environment',
};

/** `<input type="datetime-local">` values, read as UTC. */
const toInput = (iso: string | null) => (iso ? iso.slice(0, 16) : '');
const fromInput = (value: string) => {
  if (!value) return null;
  const t = Date.parse(`${value}:00Z`);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
};

interface Draft {
  range: Range;
  from: string;
  to: string;
  text: Record<ListFilter, string>;
  status: StatusFilter;
  full: boolean;
}

function draftOf(view: LedgerView): Draft {
  const text = {} as Record<ListFilter, string>;
  for (const name of LIST_FILTERS) text[name] = view.filters[name].join(', ');
  return {
    range: view.range,
    from: toInput(view.from),
    to: toInput(view.to),
    text,
    status: view.status,
    full: view.full,
  };
}

/**
 * The ledger's filters. Edits stay local until Apply (Enter in any field), then become the hash
 * query; comma-separated values are ORed, different filters ANDed (as the API does).
 */
export function LedgerFilters({
  view,
  suggestions,
  onApply,
}: {
  view: LedgerView;
  suggestions: Partial<Record<ListFilter, string[]>>;
  onApply(patch: Partial<LedgerView>): void;
}) {
  const [draft, setDraft] = useState(() => draftOf(view));
  const [problem, setProblem] = useState<string | null>(null);
  const viewKey = JSON.stringify(draftOf(view));
  useEffect(() => setDraft(draftOf(view)), [viewKey]);

  const submit = (e: Event) => {
    e.preventDefault();
    const filters = {} as Record<ListFilter, string[]>;
    for (const name of LIST_FILTERS) filters[name] = listValues([draft.text[name]]);
    let from: string | null = null;
    let to: string | null = null;
    if (draft.range === 'custom') {
      from = fromInput(draft.from);
      to = fromInput(draft.to);
      if (!from || !to || from >= to) {
        setProblem('A custom range needs a start before its end.');
        return;
      }
    }
    setProblem(null);
    onApply({ range: draft.range, from, to, filters, status: draft.status, full: draft.full, offset: 0 });
  };

  return (
    <form class="filters" onSubmit={submit} aria-label="Ledger filters">
      <label class="field">
        <span>Time range</span>
        <select
          value={draft.range}
          onChange={(e) => setDraft({ ...draft, range: (e.target as HTMLSelectElement).value as Range })}
        >
          {RANGES.map((r) => (
            <option key={r} value={r}>
              {RANGE_LABELS[r]}
            </option>
          ))}
        </select>
      </label>
      {draft.range === 'custom' ? (
        <>
          <label class="field">
            <span>From (UTC)</span>
            <input
              type="datetime-local"
              value={draft.from}
              onInput={(e) => setDraft({ ...draft, from: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label class="field">
            <span>To (UTC)</span>
            <input
              type="datetime-local"
              value={draft.to}
              onInput={(e) => setDraft({ ...draft, to: (e.target as HTMLInputElement).value })}
            />
          </label>
        </>
      ) : null}
      {LIST_FILTERS.map((name) => (
        <label class="field" key={name}>
          <span>{FILTER_LABELS[name]}</span>
          <input
            type="text"
            size={12}
            list={suggestions[name]?.length ? `ledger-${name}-options` : undefined}
            value={draft.text[name]}
            placeholder="any"
            aria-describedby="ledger-filter-help"
            onInput={(e) =>
              setDraft({ ...draft, text: { ...draft.text, [name]: (e.target as HTMLInputElement).value } })
            }
          />
          {suggestions[name]?.length ? (
            <datalist id={`ledger-${name}-options`}>
              {suggestions[name]?.map((v) => (
                <option key={v} value={v} />
              ))}
            </datalist>
          ) : null}
        </label>
      ))}
      <label class="field">
        <span>Status</span>
        <select
          value={draft.status}
          onChange={(e) =>
            setDraft({ ...draft, status: (e.target as HTMLSelectElement).value as StatusFilter })
          }
        >
          <option value="">any</option>
          <option value="success">success</option>
          <option value="failed">failed</option>
        </select>
      </label>
      <label class="field check">
        <input
          type="checkbox"
          checked={draft.full}
          onChange={(e) => setDraft({ ...draft, full: (e.target as HTMLInputElement).checked })}
        />
        <span>Include payloads</span>
      </label>
      <div class="filter-actions">
        <button type="submit">Apply</button>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setProblem(null);
            onApply({
              ...DEFAULT_VIEW,
              sortBy: view.sortBy,
              sortOrder: view.sortOrder,
              groupBy: view.groupBy,
            });
          }}
        >
          Reset
        </button>
      </div>
      <p id="ledger-filter-help" class="help filter-help">
        Several values: separate with commas (any of them matches). Filters match exactly.
      </p>
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
