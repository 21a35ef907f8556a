/**
 * Waterfall geometry: each span's bar as percentages of the trace's time range, which runs from the
 * first `startedAt` to the latest end (`startedAt + durationMs`, or `startedAt` without a duration).
 */
export interface Timed {
  startedAt: string;
  durationMs: number | null;
}

export interface TimeRange {
  startMs: number;
  endMs: number;
  /** endMs − startMs, at least 1 so a trace of instants still has a scale. */
  spanMs: number;
}

export interface Bar {
  /** Offset from the range start, in ms. */
  offsetMs: number;
  leftPct: number;
  widthPct: number;
  /** True when the span has no recorded duration (drawn as a marker). */
  instant: boolean;
}

/** The narrowest bar drawn, in percent, so that short spans stay visible and clickable. */
export const MIN_BAR_PCT = 0.4;

function parse(at: string): number | null {
  const t = Date.parse(at);
  return Number.isFinite(t) ? t : null;
}

export function timeRange(events: readonly Timed[]): TimeRange | null {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const e of events) {
    const s = parse(e.startedAt);
    if (s === null) continue;
    const d = e.durationMs !== null && Number.isFinite(e.durationMs) && e.durationMs > 0 ? e.durationMs : 0;
    start = Math.min(start, s);
    end = Math.max(end, s + d);
  }
  if (!Number.isFinite(start)) return null;
  return { startMs: start, endMs: end, spanMs: Math.max(1, end - start) };
}

export function barOf(event: Timed, range: TimeRange): Bar {
  const s = parse(event.startedAt) ?? range.startMs;
  const instant = event.durationMs === null || !Number.isFinite(event.durationMs) || event.durationMs <= 0;
  const d = instant ? 0 : (event.durationMs as number);
  const offsetMs = Math.max(0, s - range.startMs);
  let left = clampPct((offsetMs / range.spanMs) * 100);
  let width = clampPct((d / range.spanMs) * 100);
  if (width < MIN_BAR_PCT) width = MIN_BAR_PCT;
  if (left + width > 100) left = Math.max(0, 100 - width);
  return { offsetMs, leftPct: left, widthPct: width, instant };
}

function clampPct(v: number): number {
  if (!Number.isFinite(v)) return 0;
  return Math.min(100, Math.max(0, v));
}

/** Axis ticks: 1, 2 or 5 × 10^n ms apart, about `count` of them across the range (0 included). */
export function ticks(spanMs: number, count = 5): number[] {
  if (!(spanMs > 0) || !Number.isFinite(spanMs)) return [0];
  const raw = spanMs / Math.max(1, count);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow;
  const out: number[] = [];
  for (let t = 0; t <= spanMs + 1e-9 && out.length < 50; t += step) out.push(Math.round(t * 1000) / 1000);
  return out;
}
