import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Bucket, StatsPoint } from '../ledger/types.js';
import { alignMetric, BUCKET_MS, bucketGrid, isolatedIndices, tickLabel, toUplotData } from './align.js';

const point = (t: number, cost: number, p50: number | null): StatsPoint => ({
  t: new Date(t).toISOString(),
  calls: 1,
  failed: 0,
  cost,
  inputTokens: 1,
  outputTokens: 1,
  totalTokens: 2,
  latencyP50Ms: p50,
  latencyP95Ms: p50,
});

/** A window, its bucket, and series whose points sit on some of the window's buckets. */
const statsArb = fc
  .record({
    bucket: fc.constantFrom<Bucket>('minute', 'hour', 'day'),
    start: fc.integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') }),
    buckets: fc.integer({ min: 1, max: 120 }),
    series: fc.array(
      fc.record({
        key: fc.string({ minLength: 1, maxLength: 8 }),
        points: fc.array(
          fc.record({
            index: fc.nat(),
            cost: fc.double({ min: 0, max: 100, noNaN: true }),
            p50: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: null }),
          }),
          { maxLength: 30 },
        ),
      }),
      { maxLength: 6 },
    ),
  })
  .map(({ bucket, start, buckets, series }) => {
    const step = BUCKET_MS[bucket];
    const from = start;
    const to = start + buckets * step;
    const first = Math.floor(from / step) * step;
    const count = bucketGrid(new Date(from).toISOString(), new Date(to).toISOString(), bucket).length;
    return {
      bucket,
      fromDate: new Date(from).toISOString(),
      toDate: new Date(to).toISOString(),
      series: series.map((s) => {
        // The API sends each bucket at most once per series, in time order.
        const seen = new Map<number, { cost: number; p50: number | null }>();
        for (const p of s.points) seen.set(first + (p.index % count) * step, p);
        return {
          key: s.key,
          points: [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([t, p]) => point(t, p.cost, p.p50)),
        };
      }),
    };
  });

describe('stats → uPlot data', () => {
  it('aligns every series on one ascending x array; points land on their bucket, the rest are 0 or gaps', () => {
    fc.assert(
      fc.property(statsArb, fc.constantFrom('zero' as const, 'gap' as const), (stats, missing) => {
        const a = alignMetric(stats, (p) => p.cost, missing);
        const grid = bucketGrid(stats.fromDate, stats.toDate, stats.bucket);
        expect(a.xs).toEqual(grid.map((t) => t / 1000));
        for (let i = 1; i < a.xs.length; i++) expect(a.xs[i]!).toBeGreaterThan(a.xs[i - 1]!);
        expect(a.series.map((s) => s.key)).toEqual(stats.series.map((s) => s.key));
        const present = a.xs.map(() => false);
        a.series.forEach((s, si) => {
          expect(s.values).toHaveLength(a.xs.length);
          const byX = new Map(stats.series[si]!.points.map((p) => [Date.parse(p.t) / 1000, p.cost]));
          a.xs.forEach((x, i) => {
            if (byX.has(x)) {
              present[i] = true;
              expect(s.values[i]).toBe(byX.get(x));
            } else {
              expect(s.values[i]).toBe(missing === 'zero' ? 0 : null);
            }
          });
        });
        expect(a.present).toEqual(present);
        const data = toUplotData(a);
        expect(data).toHaveLength(stats.series.length + 1);
        for (const column of data) expect(column).toHaveLength(a.xs.length);
      }),
    );
  });

  it('keeps a null metric (no latency in the bucket) as a gap even when missing buckets are 0', () => {
    fc.assert(
      fc.property(statsArb, (stats) => {
        const a = alignMetric(stats, (p) => p.latencyP50Ms, 'zero');
        a.series.forEach((s, si) => {
          for (const p of stats.series[si]!.points) {
            const i = a.xs.indexOf(Date.parse(p.t) / 1000);
            expect(s.values[i]).toBe(p.latencyP50Ms);
          }
        });
      }),
    );
  });

  it('adds a point that is off the grid instead of dropping it', () => {
    const stats = {
      bucket: 'hour' as const,
      fromDate: '2026-01-01T00:00:00Z',
      toDate: '2026-01-01T03:00:00Z',
      series: [{ key: 'm', points: [point(Date.parse('2026-01-01T01:30:00Z'), 2, 10)] }],
    };
    const a = alignMetric(stats, (p) => p.cost, 'gap');
    expect(a.xs).toHaveLength(4);
    expect(a.series[0]!.values).toEqual([null, null, 2, null]);
    expect(a.present).toEqual([false, false, true, false]);
  });

  it('floors the grid to the bucket and stops before toDate', () => {
    expect(
      bucketGrid('2026-01-01T10:30:00Z', '2026-01-01T12:00:00Z', 'hour').map((t) =>
        new Date(t).toISOString(),
      ),
    ).toEqual(['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z']);
    expect(bucketGrid('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z', 'day')).toEqual([]);
  });
});

describe('isolated points', () => {
  it('finds exactly the values with no neighbour', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer(), { nil: null }), { maxLength: 50 }), (values) => {
        const isolated = new Set(isolatedIndices(values));
        values.forEach((v, i) => {
          const alone = v !== null && (values[i - 1] ?? null) === null && (values[i + 1] ?? null) === null;
          expect(isolated.has(i)).toBe(alone);
        });
      }),
    );
  });
});

describe('tick labels', () => {
  it('shows days for day steps and at midnight, times otherwise (UTC)', () => {
    const t = Date.parse('2026-11-15T14:00:00Z') / 1000;
    expect(tickLabel(t, 86_400)).toBe('Nov 15');
    expect(tickLabel(t, 3_600)).toBe('14:00');
    expect(tickLabel(Date.parse('2026-11-16T00:00:00Z') / 1000, 3_600)).toBe('Nov 16');
  });
});
