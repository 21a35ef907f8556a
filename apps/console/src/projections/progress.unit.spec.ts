import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFinished, liveGeneration, rebuildProgress, stateChanges } from './progress.js';
import type { Projection, RebuildState } from './types.js';

const rebuildArb = fc.record({
  state: fc.constantFrom<RebuildState>('queued', 'running', 'completed', 'failed'),
  eventsProcessed: fc.nat({ max: 10_000_000 }),
  eventsTotal: fc.option(fc.nat({ max: 10_000_000 }), { nil: null }),
  eventsPerSecond: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: null }),
});

describe('rebuild progress', () => {
  it('always gives a valid <progress> and a percentage in 0..100', () => {
    fc.assert(
      fc.property(rebuildArb, (r) => {
        const p = rebuildProgress(r);
        expect(p.max).toBeGreaterThan(0);
        if (p.value !== undefined) {
          expect(p.value).toBeGreaterThanOrEqual(0);
          expect(p.value).toBeLessThanOrEqual(p.max);
        }
        if (p.percent !== null) {
          expect(p.percent).toBeGreaterThanOrEqual(0);
          expect(p.percent).toBeLessThanOrEqual(100);
          expect(Number.isInteger(p.percent)).toBe(true);
        }
        if (p.etaSeconds !== null) expect(p.etaSeconds).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('is 100 % exactly when completed, and never before', () => {
    fc.assert(
      fc.property(rebuildArb, (r) => {
        const p = rebuildProgress(r);
        if (r.state === 'completed') {
          expect(p.percent).toBe(100);
          expect(p.value).toBe(p.max);
        } else if (r.state !== 'failed') {
          expect(p.percent === null || p.percent < 100).toBe(true);
        }
      }),
    );
  });

  it('grows with the events processed (same total)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1e6 }),
        fc.nat({ max: 1e6 }),
        fc.integer({ min: 1, max: 1e6 }),
        (a, b, total) => {
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const base = { state: 'running' as const, eventsTotal: total, eventsPerSecond: 100 };
          const p1 = rebuildProgress({ ...base, eventsProcessed: lo });
          const p2 = rebuildProgress({ ...base, eventsProcessed: hi });
          expect(p2.percent!).toBeGreaterThanOrEqual(p1.percent!);
          expect(p2.etaSeconds!).toBeLessThanOrEqual(p1.etaSeconds!);
        },
      ),
    );
  });

  it('is indeterminate while the total is unknown, with no ETA', () => {
    const p = rebuildProgress({
      state: 'running',
      eventsProcessed: 10,
      eventsTotal: null,
      eventsPerSecond: 5,
    });
    expect(p.value).toBeUndefined();
    expect(p.percent).toBeNull();
    expect(p.etaSeconds).toBeNull();
    expect(
      rebuildProgress({ state: 'running', eventsProcessed: 500, eventsTotal: 1000, eventsPerSecond: 100 }),
    ).toMatchObject({
      value: 500,
      max: 1000,
      percent: 50,
      etaSeconds: 5,
      label: '500 of 1,000 events',
    });
  });

  it('knows which states are final', () => {
    expect(['queued', 'running', 'completed', 'failed'].map((s) => isFinished(s as RebuildState))).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });
});

const projection = (name: string, state: Projection['state'], rebuildState?: RebuildState): Projection => ({
  name,
  state,
  codeVersion: 1,
  liveGeneration: 2,
  liveVersion: 1,
  versionMismatch: false,
  generations: [
    {
      generation: 3,
      version: 1,
      status: 'building',
      failure: null,
      checkpoint: null,
      eventsProcessed: 0,
      eventsBehind: 5,
      eventsBehindCapped: false,
      secondsBehind: 1,
      lastEventRecordedAt: null,
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
    {
      generation: 2,
      version: 1,
      status: 'live',
      failure: null,
      checkpoint: '1/1',
      eventsProcessed: 9,
      eventsBehind: 0,
      eventsBehindCapped: false,
      secondsBehind: 0,
      lastEventRecordedAt: null,
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
  ],
  rebuild: rebuildState
    ? {
        id: 'rb_1',
        projection: name,
        state: rebuildState,
        requestedAt: '',
        startedAt: null,
        finishedAt: null,
        generation: 3,
        eventsProcessed: 0,
        eventsTotal: null,
        eventsPerSecond: null,
        error: null,
        requestedBy: { kind: 'api_key', id: 'k' },
      }
    : null,
});

describe('projection list', () => {
  it('picks the live generation, not the newest', () => {
    expect(liveGeneration(projection('a', 'ok'))?.generation).toBe(2);
  });

  it('announces state changes and rebuild transitions only', () => {
    const before = [projection('a', 'ok'), projection('b', 'ok', 'running')];
    const after = [projection('a', 'building'), projection('b', 'ok', 'completed'), projection('c', 'ok')];
    expect(stateChanges(before, after)).toEqual(['a: ok → building', 'b rebuild completed']);
    expect(stateChanges(after, after)).toEqual([]);
  });
});
