import type { RecordedEvent } from '@parley/eventstore';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesReplayFilter, parseInstant, type ReplayFilter, toJsonLine } from './filter.js';

const types = ['SessionStarted', 'MessageReceived', 'AgentReplied', 'SessionEnded'];
const streams = ['session-a', 'session-b', 'audit-p1'];
const projects = ['p1', 'p2'];
const t0 = Date.UTC(2026, 10, 21);

const eventArb: fc.Arbitrary<RecordedEvent> = fc.record({
  eventId: fc.uuid(),
  type: fc.constantFrom(...types),
  schemaVersion: fc.integer({ min: 1, max: 3 }),
  data: fc.constant({}),
  metadata: fc
    .option(fc.constantFrom(...projects), { nil: undefined })
    .map((projectId) => (projectId ? { projectId } : {})),
  stream: fc.constantFrom(...streams),
  revision: fc.bigInt({ min: 0n, max: 1000n }),
  position: fc.record({
    commit: fc.bigInt({ min: 1n, max: 10_000n }),
    prepare: fc.bigInt({ min: 1n, max: 10_000n }),
  }),
  recordedAt: fc.integer({ min: 0, max: 100_000 }).map((ms) => new Date(t0 + ms)),
});

const filterArb: fc.Arbitrary<ReplayFilter> = fc.record(
  {
    stream: fc.constantFrom(...streams),
    types: fc.subarray(types),
    from: fc.integer({ min: 0, max: 100_000 }).map((ms) => new Date(t0 + ms)),
    to: fc.integer({ min: 0, max: 100_000 }).map((ms) => new Date(t0 + ms)),
    projectId: fc.constantFrom(...projects),
  },
  { requiredKeys: [] },
);

describe('matchesReplayFilter', () => {
  it('the empty filter keeps everything', () => {
    fc.assert(fc.property(eventArb, (e) => matchesReplayFilter({}, e)));
  });

  it('is the AND of its criteria, each checked alone', () => {
    fc.assert(
      fc.property(filterArb, eventArb, (filter, e) => {
        const parts = (Object.keys(filter) as Array<keyof ReplayFilter>).map(
          (k) => ({ [k]: filter[k] }) as ReplayFilter,
        );
        expect(matchesReplayFilter(filter, e)).toBe(parts.every((p) => matchesReplayFilter(p, e)));
      }),
    );
  });

  it('reads from as inclusive, to as exclusive, types as any-of', () => {
    fc.assert(
      fc.property(filterArb, eventArb, (filter, e) => {
        const at = e.recordedAt.getTime();
        if (filter.from && at === filter.from.getTime())
          expect(matchesReplayFilter({ from: filter.from }, e)).toBe(true);
        if (filter.to && at === filter.to.getTime())
          expect(matchesReplayFilter({ to: filter.to }, e)).toBe(false);
        if (filter.types && filter.types.length > 0) {
          expect(matchesReplayFilter({ types: filter.types }, e)).toBe(filter.types.includes(e.type));
        }
        if (filter.projectId) {
          expect(matchesReplayFilter({ projectId: filter.projectId }, e)).toBe(
            e.metadata.projectId === filter.projectId,
          );
        }
      }),
    );
  });

  it('keeps exactly the events of a window split in two', () => {
    fc.assert(
      fc.property(eventArb, fc.integer({ min: 0, max: 100_000 }), (e, cut) => {
        const mid = new Date(t0 + cut);
        const left = matchesReplayFilter({ to: mid }, e);
        const right = matchesReplayFilter({ from: mid }, e);
        expect(left !== right).toBe(true);
      }),
    );
  });
});

describe('toJsonLine', () => {
  it('writes one parseable line per event with 64-bit values as strings', () => {
    fc.assert(
      fc.property(eventArb, (e) => {
        const line = toJsonLine(e);
        expect(line.endsWith('\n')).toBe(true);
        expect(line.indexOf('\n')).toBe(line.length - 1);
        const parsed = JSON.parse(line);
        expect(parsed.position).toBe(`${e.position.commit}/${e.position.prepare}`);
        expect(parsed.revision).toBe(e.revision.toString());
        expect(parsed.recordedAt).toBe(e.recordedAt.toISOString());
        expect(parsed.eventId).toBe(e.eventId);
      }),
    );
  });
});

describe('parseInstant', () => {
  it('accepts dates and date-times', () => {
    expect(parseInstant('2026-11-21', '--from').toISOString()).toBe('2026-11-21T00:00:00.000Z');
    expect(parseInstant('2026-11-21T08:30:00Z', '--from').toISOString()).toBe('2026-11-21T08:30:00.000Z');
    expect(parseInstant('2026-11-21T08:30:00+01:00', '--to').toISOString()).toBe('2026-11-21T07:30:00.000Z');
  });

  it('refuses anything else, naming the flag', () => {
    for (const bad of ['yesterday', '21/11/2026', '2026-13-45', '', '1700000000']) {
      expect(() => parseInstant(bad, '--to')).toThrow(/--to must be an ISO 8601/);
    }
  });
});
