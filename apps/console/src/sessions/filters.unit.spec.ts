import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, resolveWindow } from '../ledger/filters.js';
import {
  CONTAINMENT_TYPES,
  DEFAULT_FILTERS,
  ENVIRONMENTS,
  effectiveWindow,
  filtersToApiQuery,
  filtersToQuery,
  formatDimensions,
  parseDimensions,
  parseFilters,
  parseList,
  type SessionFilters,
  SORT_FIELDS,
  STATUSES,
} from './filters.js';

const token = fc
  .stringMatching(/^[A-Za-z0-9_+.:@ -]{1,12}$/)
  .map((s) => s.trim())
  .filter((s) => s.length > 0);
const uniq = (arb: fc.Arbitrary<string>) => fc.uniqueArray(arb, { maxLength: 4 });
const day = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const filtersArb: fc.Arbitrary<SessionFilters> = fc.record({
  from: fc.option(day, { nil: null }),
  to: fc.option(day, { nil: null }),
  status: fc.option(fc.constantFrom(...STATUSES), { nil: null }),
  containmentType: fc.uniqueArray(fc.constantFrom(...CONTAINMENT_TYPES), { maxLength: 6 }),
  channel: uniq(token),
  environment: fc.uniqueArray(fc.constantFrom(...ENVIRONMENTS), { maxLength: 4 }),
  callerNumber: uniq(token),
  channelUId: uniq(token),
  dimensions: fc
    .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), token), {
      maxLength: 4,
      selector: ([k]) => k,
    })
    .map((d) => [...d].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  sortBy: fc.constantFrom(...SORT_FIELDS),
  sortOrder: fc.constantFrom('asc' as const, 'desc' as const),
  offset: fc.nat({ max: 1_000_000 }),
  limit: fc.integer({ min: 1, max: 1000 }),
});

describe('session filters ⇄ hash query', () => {
  it('round-trips every filter set through the hash query (and its string form)', () => {
    fc.assert(
      fc.property(filtersArb, (f) => {
        expect(parseFilters(filtersToQuery(f))).toEqual(f);
        expect(parseFilters(new URLSearchParams(filtersToQuery(f).toString()))).toEqual(f);
      }),
    );
  });

  it('leaves the defaults out of the address', () => {
    expect(filtersToQuery(DEFAULT_FILTERS).toString()).toBe('');
    expect(parseFilters(new URLSearchParams())).toEqual(DEFAULT_FILTERS);
  });

  it('never throws on arbitrary queries and always yields valid values', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 12 }), (pairs) => {
        const f = parseFilters(new URLSearchParams(pairs));
        expect(f.status === null || (STATUSES as readonly string[]).includes(f.status)).toBe(true);
        expect(f.containmentType.every((c) => (CONTAINMENT_TYPES as readonly string[]).includes(c))).toBe(
          true,
        );
        expect(f.environment.every((c) => (ENVIRONMENTS as readonly string[]).includes(c))).toBe(true);
        expect((SORT_FIELDS as readonly string[]).includes(f.sortBy)).toBe(true);
        expect(Number.isInteger(f.offset) && f.offset >= 0).toBe(true);
        expect(f.limit >= 1 && f.limit <= 1000).toBe(true);
        // A parsed filter set is a fixed point.
        expect(parseFilters(filtersToQuery(f))).toEqual(f);
      }),
    );
  });

  it('rejects impossible dates and reads comma lists', () => {
    const f = parseFilters(
      new URLSearchParams('from=2026-02-30&to=2026-03-01&channel=web,%20voice&channel=web&status=failed'),
    );
    expect(f.from).toBeNull();
    expect(f.to).toBe('2026-03-01');
    expect(f.channel).toEqual(['web', 'voice']);
    expect(f.status).toBeNull();
  });
});

describe('the API query', () => {
  const now = new Date('2026-11-21T17:00:00Z');

  it('defaults to the last 7 × 24 hours, rolling, as the ledger does', () => {
    const at = new Date('2026-11-21T17:00:30Z');
    const q = filtersToApiQuery(DEFAULT_FILTERS, at);
    expect(q).toMatchObject({ fromDate: '2026-11-14T17:01:00.000Z', toDate: '2026-11-21T17:01:00.000Z' });
    expect(resolveWindow({ ...DEFAULT_VIEW, range: '7d' }, at)).toEqual({
      fromDate: q.fromDate,
      toDate: q.toDate,
    });
    // The form shows the days that window touches.
    expect(effectiveWindow(DEFAULT_FILTERS, at)).toEqual({ from: '2026-11-14', to: '2026-11-21' });
  });

  it('sends whole UTC days once a day is chosen, toDate exclusive', () => {
    expect(filtersToApiQuery({ ...DEFAULT_FILTERS, to: '2026-11-20' }, now)).toMatchObject({
      fromDate: '2026-11-14',
      toDate: '2026-11-21',
    });
    expect(filtersToApiQuery({ ...DEFAULT_FILTERS, from: '2026-11-01' }, now)).toMatchObject({
      fromDate: '2026-11-01',
      toDate: '2026-11-22',
    });
  });

  it('sends every filter under the API names, dimensions as traceDimensions[key]', () => {
    const q = filtersToApiQuery(
      {
        ...DEFAULT_FILTERS,
        from: '2026-01-01',
        to: '2026-01-31',
        status: 'ended',
        containmentType: ['escalated'],
        channel: ['web'],
        environment: ['dev'],
        callerNumber: ['+44 20 7946 0958'],
        channelUId: ['u1'],
        dimensions: [['plan', 'pro']],
        sortBy: 'estimatedCost',
        sortOrder: 'asc',
        offset: 50,
      },
      now,
    );
    expect(q).toEqual({
      fromDate: '2026-01-01',
      toDate: '2026-02-01',
      status: 'ended',
      containmentType: ['escalated'],
      channel: ['web'],
      environment: ['dev'],
      callerNumber: ['+44 20 7946 0958'],
      channelUId: ['u1'],
      'traceDimensions[plan]': 'pro',
      sortBy: 'estimatedCost',
      sortOrder: 'asc',
      limit: 50,
      offset: 50,
    });
  });

  it('parses the form text boxes', () => {
    expect(parseDimensions(' region = eu, plan=pro, bad, =x, plan=free')).toEqual([
      ['plan', 'pro'],
      ['region', 'eu'],
    ]);
    expect(formatDimensions([['plan', 'pro']])).toBe('plan=pro');
    expect(parseList(' a, b ,,a ')).toEqual(['a', 'b']);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/), fc.stringMatching(/^[a-z0-9]{1,6}$/)), {
          selector: ([k]) => k,
          maxLength: 5,
        }),
        (pairs) => {
          const sorted = [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          expect(parseDimensions(formatDimensions(sorted))).toEqual(sorted);
        },
      ),
    );
  });
});
