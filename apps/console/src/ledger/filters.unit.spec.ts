import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ariaSortOf } from '../components/SortHeader.js';
import { href, parseRoute } from '../router.js';
import {
  BUCKETS,
  DEFAULT_VIEW,
  GROUP_BYS,
  type LedgerView,
  LIST_FILTERS,
  type ListFilter,
  ledgerApiQuery,
  ledgerHashQuery,
  listValues,
  nextSort,
  parseLedgerQuery,
  RANGES,
  resolveWindow,
  SORT_FIELDS,
  STATUSES,
  statsApiQuery,
} from './filters.js';

const value = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 16 })
  .map((s) => s.replace(/,/g, '').trim())
  .filter((s) => s.length > 0);
const values = fc.uniqueArray(value, { maxLength: 4 });
const instant = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const filtersArb = fc.record(
  Object.fromEntries(LIST_FILTERS.map((name) => [name, values])) as Record<ListFilter, typeof values>,
);

/** Every view the screen can be in (normalized: what parse can produce). */
const viewArb: fc.Arbitrary<LedgerView> = fc
  .record({
    range: fc.constantFrom(...RANGES),
    from: instant,
    to: instant,
    filters: filtersArb,
    status: fc.constantFrom(...STATUSES),
    sortBy: fc.constantFrom(...SORT_FIELDS),
    sortOrder: fc.constantFrom('asc' as const, 'desc' as const),
    full: fc.boolean(),
    offset: fc.nat({ max: 1_000_000 }),
    groupBy: fc.constantFrom(...GROUP_BYS),
    bucket: fc.constantFrom(...BUCKETS),
  })
  .map((v) =>
    v.range === 'custom'
      ? { ...v, from: v.from < v.to ? v.from : v.to, to: v.from < v.to ? v.to : v.from }
      : { ...v, from: null, to: null },
  );

describe('ledger filters ↔ hash query', () => {
  it('round-trips every view through the hash query', () => {
    fc.assert(
      fc.property(viewArb, (view) => {
        expect(parseLedgerQuery(ledgerHashQuery(view))).toEqual(view);
      }),
    );
  });

  it('round-trips through the router (href → location.hash → parseRoute)', () => {
    fc.assert(
      fc.property(viewArb, (view) => {
        const route = parseRoute(href(['p', 'proj_1', 'ledger'], ledgerHashQuery(view)));
        expect(route.name).toBe('ledger');
        if (route.name !== 'ledger') return;
        expect(route.projectId).toBe('proj_1');
        expect(parseLedgerQuery(route.query)).toEqual(view);
      }),
    );
  });

  it('parses any query without throwing, and its output is a fixed point', () => {
    const pairs = fc.array(
      fc.tuple(
        fc.constantFrom(
          'range',
          'from',
          'to',
          'model',
          'provider',
          'status',
          'sortBy',
          'sortOrder',
          'offset',
          'full',
          'groupBy',
          'bucket',
          'x',
        ),
        fc.string({ maxLength: 20 }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(pairs, (entries) => {
        const view = parseLedgerQuery(new URLSearchParams(entries));
        expect(parseLedgerQuery(ledgerHashQuery(view))).toEqual(view);
      }),
    );
  });

  it('leaves defaults out of the hash', () => {
    expect(ledgerHashQuery(DEFAULT_VIEW).toString()).toBe('');
    expect(parseLedgerQuery(new URLSearchParams())).toEqual(DEFAULT_VIEW);
  });

  it('reads repeated and comma-separated values alike, trimmed and deduplicated', () => {
    const q = new URLSearchParams('model=a,%20b&model=b&model=&model=c');
    expect(parseLedgerQuery(q).filters.model).toEqual(['a', 'b', 'c']);
    expect(listValues([' x , ,y', 'x'])).toEqual(['x', 'y']);
  });

  it('falls back to the default range when a custom range lacks a bound', () => {
    const view = parseLedgerQuery(new URLSearchParams('range=custom&from=2026-01-01T00:00:00Z'));
    expect(view.range).toBe(DEFAULT_VIEW.range);
    expect(view.from).toBeNull();
  });
});

describe('ledger API queries', () => {
  it('sends every filter, the window, sort, data mode and page', () => {
    fc.assert(
      fc.property(
        viewArb,
        fc.date({ min: new Date('2020-01-01'), max: new Date('2090-01-01'), noInvalidDate: true }),
        (view, now) => {
          const window = resolveWindow(view, now);
          expect(Date.parse(window.fromDate)).toBeLessThan(Date.parse(window.toDate));
          const q = ledgerApiQuery(view, window);
          expect(q.fromDate).toBe(window.fromDate);
          expect(q.toDate).toBe(window.toDate);
          expect(q.sortBy).toBe(view.sortBy);
          expect(q.sortOrder).toBe(view.sortOrder);
          expect(q.dataMode).toBe(view.full ? 'full' : 'summary');
          expect(q.offset).toBe(view.offset);
          const stats = statsApiQuery(view, window);
          expect(stats.groupBy).toBe(view.groupBy);
          expect(stats.bucket).toBe(view.bucket === 'auto' ? undefined : view.bucket);
          for (const name of LIST_FILTERS) {
            const expected = view.filters[name].length > 0 ? view.filters[name] : undefined;
            expect(q[name]).toEqual(expected);
            expect(stats[name]).toEqual(expected);
          }
          expect(q.status).toBe(view.status || undefined);
          expect('offset' in stats).toBe(false);
        },
      ),
    );
  });

  it('ends preset windows at the next whole minute', () => {
    const w = resolveWindow({ ...DEFAULT_VIEW, range: '1h' }, new Date('2026-03-01T10:15:42.123Z'));
    expect(w).toEqual({ fromDate: '2026-03-01T09:16:00.000Z', toDate: '2026-03-01T10:16:00.000Z' });
  });
});

describe('sorting', () => {
  it('flips the order on the same column, starts descending on another, and goes back to page 1', () => {
    fc.assert(
      fc.property(viewArb, fc.constantFrom(...SORT_FIELDS), (view, field) => {
        const next = nextSort(view, field);
        expect(next.offset).toBe(0);
        expect(next.sortBy).toBe(field);
        if (view.sortBy === field) expect(next.sortOrder).not.toBe(view.sortOrder);
        else expect(next.sortOrder).toBe('desc');
        const after = { ...view, ...next };
        expect(ariaSortOf(after.sortBy, after.sortOrder, field)).toBe(
          next.sortOrder === 'asc' ? 'ascending' : 'descending',
        );
        for (const other of SORT_FIELDS)
          if (other !== field) expect(ariaSortOf(after.sortBy, after.sortOrder, other)).toBe('none');
      }),
    );
  });
});
