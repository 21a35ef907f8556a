import { useState } from 'preact/hooks';
import {
  CHANNEL_SUGGESTIONS,
  CONTAINMENT_TYPES,
  ENVIRONMENTS,
  effectiveWindow,
  formatDimensions,
  PAGE_SIZES,
  parseDimensions,
  parseFilters,
  parseList,
  type SessionFilters,
  STATUSES,
} from './filters.js';

/**
 * The sessions screen's filter form. It edits a draft (text as typed) and hands the parsed filters to
 * `onApply` on submit; remount it (a new `key`) when the filters change from outside.
 */
export function SessionFilterForm({
  filters,
  onApply,
}: {
  filters: SessionFilters;
  onApply(f: SessionFilters): void;
}) {
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

/** The form as typed: lists stay comma-separated text until Apply. */
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
