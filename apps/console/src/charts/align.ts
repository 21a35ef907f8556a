import type { Bucket, StatsPoint, StatsSeries } from '../ledger/types.js';

/**
 * Turns the sparse series of GET …/llm-ledger/stats (only buckets with calls appear) into uPlot's
 * aligned columns: one x array (unix seconds) shared by every series, one y array per series. Pure.
 */
export const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** At most this many grid points are generated (the API refuses windows over 1,000 buckets). */
export const MAX_GRID = 2_000;

/** Bucket starts (ms, UTC) covering [from, to): the first is `from` floored to the bucket. */
export function bucketGrid(fromIso: string, toIso: string, bucket: Bucket): number[] {
  const step = BUCKET_MS[bucket];
  const from = Date.parse(fromIso);
  const to = Date.parse(toIso);
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return [];
  const grid: number[] = [];
  for (let t = Math.floor(from / step) * step; t < to && grid.length < MAX_GRID; t += step) grid.push(t);
  return grid;
}

/** What a bucket without calls shows: 0 (cost, tokens: nothing was spent) or a gap (latency: unknown). */
export type Missing = 'zero' | 'gap';

export interface AlignedSeries {
  key: string;
  values: Array<number | null>;
}

export interface Aligned {
  /** Unix seconds, ascending, unique. */
  xs: number[];
  /** Whether any series has a point at xs[i] (the rows of the accessible data table). */
  present: boolean[];
  series: AlignedSeries[];
}

export interface StatsShape {
  bucket: Bucket;
  fromDate: string;
  toDate: string;
  series: readonly StatsSeries[];
}

/** Aligns one metric of every series on the window's bucket grid (plus any point off the grid). */
export function alignMetric(
  stats: StatsShape,
  pick: (point: StatsPoint) => number | null,
  missing: Missing,
): Aligned {
  const times = new Set<number>(bucketGrid(stats.fromDate, stats.toDate, stats.bucket));
  for (const s of stats.series) {
    for (const p of s.points) {
      const t = Date.parse(p.t);
      if (Number.isFinite(t)) times.add(t);
    }
  }
  const ms = [...times].sort((a, b) => a - b);
  const index = new Map(ms.map((t, i) => [t, i]));
  const empty = missing === 'zero' ? 0 : null;
  const present = ms.map(() => false);
  const series = stats.series.map((s) => {
    const values: Array<number | null> = ms.map(() => empty);
    for (const p of s.points) {
      const i = index.get(Date.parse(p.t));
      if (i === undefined) continue;
      present[i] = true;
      const v = pick(p);
      values[i] = v === null || !Number.isFinite(v) ? null : v;
    }
    return { key: s.key, values };
  });
  return { xs: ms.map((t) => t / 1000), present, series };
}

/** uPlot's data layout: `[xs, ys1, ys2, …]`. */
export function toUplotData(aligned: Aligned): Array<Array<number | null>> {
  return [aligned.xs, ...aligned.series.map((s) => s.values)];
}

/** Indices of values with no neighbour (a lone bucket between gaps): drawn as dots, a line would be invisible. */
export function isolatedIndices(values: ReadonlyArray<number | null>): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null || values[i] === undefined) continue;
    const before = i > 0 ? values[i - 1] : null;
    const after = i < values.length - 1 ? values[i + 1] : null;
    if ((before === null || before === undefined) && (after === null || after === undefined)) out.push(i);
  }
  return out;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** X-axis tick label (UTC): days as "Nov 15", times as "14:00", midnight as the day. */
export function tickLabel(seconds: number, incrementSeconds: number): string {
  const d = new Date(seconds * 1000);
  const day = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  if (incrementSeconds >= 86_400) return day;
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  if (hh === '00' && mm === '00') return day;
  return `${hh}:${mm}`;
}
