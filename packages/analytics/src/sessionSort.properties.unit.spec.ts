import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEDGER_SORT_FIELDS, SESSION_SORT_FIELDS, SORT_DIRECTIONS } from './filters.js';
import { parseLedgerQuery } from './parseLedgerQuery.js';
import { parseSessionListQuery } from './parseSessionListQuery.js';
import type { AnalyticsQuery } from './queryValues.js';
import { errorOf, okFilter, RANGE } from './testing/testQueries.js';

const sessions = (query: AnalyticsQuery) =>
  parseSessionListQuery('p1', query, { callerNumberLookupEnabled: true });
const ledger = (query: AnalyticsQuery) => parseLedgerQuery('p1', query);

/** A raw parameter value: anything, a near miss of an allowed value, or an allowed one (padded, repeated). */
const rawValue = (allowed: readonly string[]) =>
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...allowed),
    fc.constantFrom(...allowed).map((v) => ` ${v} `),
    fc.constantFrom(...allowed).map((v) => v.toUpperCase()),
    fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...allowed)), {
      minLength: 1,
      maxLength: 3,
    }),
    fc.constant(undefined),
  );

/** What the parser must make of a raw value: the trimmed first value, undefined when absent or empty. */
const expected = (raw: string | string[] | undefined): string | undefined => {
  const first = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return first === '' ? undefined : first;
};

describe('session list sortBy / sortOrder (property)', () => {
  it('accepts exactly the listed values, defaults createdAt desc (left out of the filter), else names the parameter', () => {
    fc.assert(
      fc.property(rawValue(SESSION_SORT_FIELDS), rawValue(SORT_DIRECTIONS), (sortBy, sortOrder) => {
        const query: AnalyticsQuery = { ...RANGE, sortBy, sortOrder };
        const field = expected(sortBy) ?? 'createdAt';
        const direction = expected(sortOrder) ?? 'desc';
        const result = sessions(query);
        const fieldOk = (SESSION_SORT_FIELDS as readonly string[]).includes(field);
        const directionOk = (SORT_DIRECTIONS as readonly string[]).includes(direction);
        if (fieldOk && directionOk) {
          const filter = okFilter(result);
          const isDefault = field === 'createdAt' && direction === 'desc';
          expect(filter.sort).toEqual(isDefault ? undefined : { field, direction });
          return;
        }
        // sortBy is checked before sortOrder.
        const parameter = fieldOk ? 'sortOrder' : 'sortBy';
        const error = errorOf(result);
        expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', details: { parameter } });
        expect(error.details.allowed).toEqual(fieldOk ? SORT_DIRECTIONS : SESSION_SORT_FIELDS);
      }),
      { numRuns: 500 },
    );
  });

  it('answers a bad value exactly as the ledger does (one parser): same code, message shape, details', () => {
    const notAField = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter(
        (v) =>
          v.trim() !== '' &&
          !v.includes(',') &&
          ![...SESSION_SORT_FIELDS, ...LEDGER_SORT_FIELDS].includes(v.trim() as never),
      );
    fc.assert(
      fc.property(notAField, fc.constantFrom('sortBy', 'sortOrder'), (value, name) => {
        const s = errorOf(sessions({ ...RANGE, [name]: value }));
        const l = errorOf(ledger({ fromDate: RANGE.fromDate, toDate: RANGE.toDate, [name]: value }));
        if (name === 'sortOrder' && (SORT_DIRECTIONS as readonly string[]).includes(value.trim())) return;
        expect(s.code).toBe(l.code);
        expect(s.status).toBe(l.status);
        expect(Object.keys(s.details)).toEqual(Object.keys(l.details));
        expect(s.details.parameter).toBe(name);
        expect(l.details.parameter).toBe(name);
        if (name === 'sortOrder') expect(s).toEqual(l);
      }),
      { numRuns: 300 },
    );
  });

  it('sort does not change any other field of the filter', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SESSION_SORT_FIELDS),
        fc.constantFrom(...SORT_DIRECTIONS),
        (field, direction) => {
          const base = okFilter(sessions({ ...RANGE, status: 'ended', limit: '7' }));
          const { sort, ...rest } = okFilter(
            sessions({ ...RANGE, status: 'ended', limit: '7', sortBy: field, sortOrder: direction }),
          );
          expect(rest).toEqual(base);
          expect(sort === undefined).toBe(field === 'createdAt' && direction === 'desc');
        },
      ),
    );
  });

  it('the sort is checked after the filters (our extension comes last)', () => {
    const error = errorOf(sessions({ ...RANGE, status: 'failed', sortBy: 'nope' }));
    expect(error.code).toBe('INVALID_STATUS');
  });
});
