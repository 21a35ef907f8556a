import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isWithheldCallerId } from './isWithheldCallerId.js';
import { parseLedgerQuery } from './parseLedgerQuery.js';
import { parseSessionListQuery } from './parseSessionListQuery.js';
import type { AnalyticsQuery } from './queryValues.js';

// Query objects whose values break the declared type (numbers, nested objects, null), as a custom
// query-string parser could produce, and keys such as `__proto__` from JSON.
const hostileQueries = fc
  .dictionary(
    fc.oneof(
      fc.string(),
      fc.constantFrom('__proto__', 'constructor', 'traceDimensions', 'traceDimensions[x]', 'callerNumber'),
    ),
    fc.anything(),
  )
  .map((q) => JSON.parse(JSON.stringify(q)) as AnalyticsQuery);

describe('parsers on hostile query objects', () => {
  it('never throw', () => {
    fc.assert(
      fc.property(hostileQueries, fc.boolean(), (query, callerNumberLookupEnabled) => {
        parseSessionListQuery('p1', query, { callerNumberLookupEnabled });
        parseLedgerQuery('p1', query);
      }),
      { numRuns: 3000 },
    );
  });

  it('ignore values of the wrong type', () => {
    const query = {
      fromDate: '2026-03-01',
      toDate: 7,
      sessionIds: [1, 's1', null],
      channel: { web: true },
    } as unknown as AnalyticsQuery;
    const result = parseSessionListQuery('p1', query, { callerNumberLookupEnabled: true });
    expect(result.ok && result.filter.sessionIds).toEqual(['s1']);
  });
});

describe('isWithheldCallerId', () => {
  it.each([
    ['Anonymous', true],
    ['anonymous', true],
    ['sip:anonymous@anonymous.invalid', true],
    [' Restricted ', true],
    ['PRIVATE', true],
    ['+442079460958', false],
    ['', false],
    [undefined, false],
    ['alice', false],
  ])('%j → %j', (raw, withheld) => {
    expect(isWithheldCallerId(raw)).toBe(withheld);
  });
});
