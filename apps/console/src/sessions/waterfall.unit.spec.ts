import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatAgo, formatCost, formatMs, formatTick, shortId } from './format.js';
import { barOf, MIN_BAR_PCT, ticks, timeRange } from './waterfall.js';

const t0 = Date.parse('2026-11-21T10:00:00.000Z');
const eventArb = fc.record({
  startedAt: fc.integer({ min: 0, max: 3_600_000 }).map((ms) => new Date(t0 + ms).toISOString()),
  durationMs: fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: null }),
});

describe('waterfall geometry', () => {
  it('places bars relative to the first start, inside 0..100 %', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { minLength: 1, maxLength: 40 }), (events) => {
        const range = timeRange(events);
        expect(range).not.toBeNull();
        if (!range) return;
        expect(range.startMs).toBe(Math.min(...events.map((e) => Date.parse(e.startedAt))));
        for (const e of events) {
          const bar = barOf(e, range);
          expect(bar.leftPct).toBeGreaterThanOrEqual(0);
          expect(bar.widthPct).toBeGreaterThanOrEqual(MIN_BAR_PCT);
          expect(bar.leftPct + bar.widthPct).toBeLessThanOrEqual(100 + 1e-9);
          expect(bar.offsetMs).toBe(Date.parse(e.startedAt) - range.startMs);
          expect(bar.instant).toBe(e.durationMs === null || e.durationMs === 0);
        }
      }),
    );
  });

  it('is proportional: a span lasting the whole range fills it', () => {
    const range = timeRange([
      { startedAt: new Date(t0).toISOString(), durationMs: 1000 },
      { startedAt: new Date(t0 + 500).toISOString(), durationMs: 250 },
    ]);
    expect(range).toEqual({ startMs: t0, endMs: t0 + 1000, spanMs: 1000 });
    if (!range) return;
    expect(barOf({ startedAt: new Date(t0).toISOString(), durationMs: 1000 }, range)).toMatchObject({
      leftPct: 0,
      widthPct: 100,
    });
    expect(barOf({ startedAt: new Date(t0 + 500).toISOString(), durationMs: 250 }, range)).toMatchObject({
      leftPct: 50,
      widthPct: 25,
    });
  });

  it('has no range without a parsable start; a trace of instants still has a scale', () => {
    expect(timeRange([])).toBeNull();
    expect(timeRange([{ startedAt: 'nope', durationMs: 5 }])).toBeNull();
    expect(timeRange([{ startedAt: new Date(t0).toISOString(), durationMs: null }])?.spanMs).toBe(1);
  });

  it('ticks start at 0, grow evenly in 1/2/5 steps and stay within the range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10 }), (span, count) => {
        const ts = ticks(span, count);
        expect(ts[0]).toBe(0);
        expect(ts.length).toBeLessThanOrEqual(2 * count + 1);
        for (const t of ts) expect(t).toBeLessThanOrEqual(span + 1e-6);
        const step = (ts[1] ?? span) - (ts[0] ?? 0);
        if (ts.length > 1) {
          const mant = step / 10 ** Math.floor(Math.log10(step));
          expect([1, 2, 5, 10].some((m) => Math.abs(m - mant) < 1e-6)).toBe(true);
        }
      }),
    );
  });
});

describe('formats', () => {
  it('formats durations, costs, ticks, ages and ids', () => {
    expect(formatMs(null)).toBe('—');
    expect(formatMs(19)).toBe('19 ms');
    expect(formatMs(1432)).toBe('1.43 s');
    expect(formatMs(68_000)).toBe('1 m 8 s');
    expect(formatMs(7_200_000)).toBe('2 h 0 m');
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(0.007224)).toBe('$0.00722');
    expect(formatCost(0.0181)).toBe('$0.0181');
    expect(formatTick(0)).toBe('0');
    expect(formatTick(250)).toBe('250ms');
    expect(formatTick(5000)).toBe('5s');
    expect(formatAgo('2026-11-21T10:00:00Z', Date.parse('2026-11-21T10:00:12Z'))).toBe('12 s ago');
    expect(shortId('abcdefghijklmnopqrstuvwxyz', 11)).toBe('abcde…vwxyz');
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 3, max: 40 }), (id, max) => {
        expect(shortId(id, max).length).toBeLessThanOrEqual(
          Math.max(max, id.length <= max ? id.length : max),
        );
      }),
    );
  });
});
