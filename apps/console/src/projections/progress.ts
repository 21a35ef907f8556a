import type { Projection, ProjectionState, Rebuild, RebuildState } from './types.js';

/** Pure helpers of the projections screen: rebuild progress, the live generation, state changes. */

export function isFinished(state: RebuildState): boolean {
  return state === 'completed' || state === 'failed';
}

export interface ProgressView {
  /** For `<progress value max>`; `value` undefined = indeterminate (total unknown yet). */
  value: number | undefined;
  max: number;
  /** 0..100, null when unknown. */
  percent: number | null;
  /** Seconds to go at the current rate, null when unknown. */
  etaSeconds: number | null;
  label: string;
}

/**
 * Progress of a rebuild. The total is counted in the background and can trail the processed count
 * (events keep arriving): the fraction is clamped to [0, 1]; a completed rebuild is 100 %.
 */
export function rebuildProgress(
  r: Pick<Rebuild, 'state' | 'eventsProcessed' | 'eventsTotal' | 'eventsPerSecond'>,
): ProgressView {
  const processed = Math.max(0, Number.isFinite(r.eventsProcessed) ? r.eventsProcessed : 0);
  const total =
    r.eventsTotal !== null && Number.isFinite(r.eventsTotal) && r.eventsTotal >= 0 ? r.eventsTotal : null;
  if (r.state === 'completed') {
    const max = Math.max(1, total ?? processed, processed);
    return {
      value: max,
      max,
      percent: 100,
      etaSeconds: 0,
      label: `${processed.toLocaleString('en-US')} events`,
    };
  }
  if (total === null || total === 0) {
    return {
      value: r.state === 'queued' ? 0 : undefined,
      max: 1,
      percent: null,
      etaSeconds: null,
      label: `${processed.toLocaleString('en-US')} events`,
    };
  }
  const max = Math.max(total, processed);
  const fraction = Math.min(1, processed / total);
  // Never 100 % before the worker says completed (the swap still has to happen).
  const percent = Math.min(r.state === 'failed' ? 100 : 99, Math.floor(fraction * 100));
  const rate = r.eventsPerSecond;
  const remaining = Math.max(0, total - processed);
  const etaSeconds =
    rate && rate > 0 && Number.isFinite(rate) && r.state === 'running' ? remaining / rate : null;
  return {
    value: processed,
    max,
    percent,
    etaSeconds,
    label: `${processed.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} events`,
  };
}

/** The generation that serves reads (the live one), else the newest. */
export function liveGeneration(p: Projection): Projection['generations'][number] | null {
  return p.generations.find((g) => g.generation === p.liveGeneration) ?? p.generations[0] ?? null;
}

/** Announcements for the aria-live region: projections whose state or latest rebuild state changed. */
export function stateChanges(before: readonly Projection[], after: readonly Projection[]): string[] {
  const previous = new Map(before.map((p) => [p.name, p]));
  const out: string[] = [];
  for (const p of after) {
    const old = previous.get(p.name);
    if (!old) continue;
    if (old.state !== p.state) out.push(`${p.name}: ${stateLabel(old.state)} → ${stateLabel(p.state)}`);
    const r = p.rebuild;
    if (r && (old.rebuild?.id !== r.id || old.rebuild.state !== r.state))
      out.push(`${p.name} rebuild ${r.state}`);
  }
  return out;
}

export function stateLabel(state: ProjectionState | string): string {
  switch (state) {
    case 'ok':
      return 'ok';
    case 'building':
      return 'building';
    case 'failed':
      return 'failed';
    case 'rebuild_required':
      return 'rebuild required';
    case 'unregistered':
      return 'unregistered';
    default:
      return state;
  }
}

/** The badge tone of a projection or rebuild state. */
export function stateClass(state: string): string {
  if (state === 'ok' || state === 'completed') return 'ok';
  if (state === 'failed' || state === 'rebuild_required') return 'bad';
  if (state === 'building' || state === 'running' || state === 'queued') return 'busy';
  return 'idle';
}
