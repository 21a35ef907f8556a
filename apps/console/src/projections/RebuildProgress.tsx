import { formatInt, formatSeconds, formatUtc } from '../charts/format.js';
import { ApiProblem } from '../components/ApiProblem.js';
import { isFinished, rebuildProgress, stateClass } from './progress.js';
import type { Rebuild } from './types.js';

/** A rebuild the screen follows, with the last error reading its progress. */
export interface Watch {
  rebuild: Rebuild;
  /** The rebuild was already running when we asked (409). */
  joined: boolean;
  error: unknown;
}

/** One rebuild's progress bar and status line; Dismiss once it has finished. */
export function RebuildProgress({ watch, onDismiss }: { watch: Watch; onDismiss(): void }) {
  const r = watch.rebuild;
  const p = rebuildProgress(r);
  const id = `rebuild-${r.id}`;
  return (
    <div class="rebuild">
      <span id={`${id}-label`} class="rebuild-label">
        {`Rebuild of ${r.projection}`}
        {watch.joined ? ' (already running)' : ''}
      </span>
      <progress
        aria-labelledby={`${id}-label`}
        aria-describedby={`${id}-status`}
        max={p.max}
        {...(p.value === undefined ? {} : { value: p.value })}
      />
      <span id={`${id}-status`} class="rebuild-status">
        <span class={`badge ${stateClass(r.state)}`}>{r.state}</span>{' '}
        {p.percent === null ? '' : `${p.percent}% · `}
        {p.label}
        {r.eventsPerSecond !== null && r.state !== 'queued'
          ? ` · ${formatInt(r.eventsPerSecond)} events/s`
          : ''}
        {p.etaSeconds !== null && r.state === 'running'
          ? ` · about ${formatSeconds(Math.ceil(p.etaSeconds))} left`
          : ''}
        {r.generation !== null ? ` · generation ${r.generation}` : ''}
        {r.state === 'completed' && r.finishedAt ? ` · finished ${formatUtc(r.finishedAt)}` : ''}
      </span>
      {r.error ? <span class="error">{r.error}</span> : null}
      {watch.error ? <ApiProblem error={watch.error} title="Progress could not be read" /> : null}
      {isFinished(r.state) ? (
        <button type="button" class="link" onClick={onDismiss}>
          Dismiss
        </button>
      ) : null}
    </div>
  );
}
