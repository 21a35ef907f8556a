import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONTAINMENT_TYPE_FILTERS, parseSessionListQuery } from './parseSessionListQuery.js';
import type { AnalyticsQuery } from './queryValues.js';
import { sessionSearchQuery } from './sessionSearchBody.js';
import { errorOf, okFilter, RANGE } from './testing/testQueries.js';

const parse = (query: AnalyticsQuery, callerNumberLookupEnabled = true) =>
  parseSessionListQuery('p1', query, { callerNumberLookupEnabled });
/** The POST path: body → query → the GET's parser. */
const parseBody = (body: unknown, callerNumberLookupEnabled = true) => {
  const query = sessionSearchQuery(body);
  return query.ok ? parse(query.filter, callerNumberLookupEnabled) : query;
};

describe('sessionSearchQuery', () => {
  it('reads every filter of the GET from a JSON body: arrays as repeats, numbers as text', () => {
    const body = {
      ...RANGE,
      sessionIds: ['s1', 's2,s3'],
      containmentType: 'escalated',
      environment: ['dev'],
      channelUId: ['u1'],
      callerNumber: ['+44 20 7946 0958', 442079460000],
      channel: 'web',
      traceDimensions: { plan: 'pro', region: ['eu', 'us'] },
      status: 'active',
      limit: 50,
      offset: '5',
      sortBy: 'estimatedCost',
      sortOrder: 'asc',
      unknownField: { anything: true },
    };
    const get: AnalyticsQuery = {
      ...RANGE,
      sessionIds: ['s1', 's2,s3'],
      containmentType: 'escalated',
      environment: 'dev',
      channelUId: 'u1',
      callerNumber: ['+44 20 7946 0958', '442079460000'],
      channel: 'web',
      'traceDimensions[plan]': 'pro',
      'traceDimensions[region]': ['eu', 'us'],
      status: 'active',
      limit: '50',
      offset: '5',
      sortBy: 'estimatedCost',
      sortOrder: 'asc',
    };
    expect(okFilter(parseBody(body))).toEqual(okFilter(parse(get)));
    expect(okFilter(parseBody(body))).toMatchObject({
      sessionIds: ['s1', 's2', 's3'],
      traceDimensions: { plan: 'pro', region: 'eu' },
      limit: 50,
      offset: 5,
    });
  });

  it('no body, {} and nulls are the GET without parameters: the missing date range', () => {
    for (const body of [undefined, null, {}, { fromDate: null, toDate: null, sessionIds: [] }]) {
      expect(errorOf(parseBody(body))).toEqual(errorOf(parse({})));
    }
  });

  it('refuses a body that is not an object, and fields of another type, never echoing a value', () => {
    for (const body of [[RANGE], 'fromDate=2026-03-01', 42, true]) {
      expect(errorOf(parseBody(body))).toMatchObject({
        status: 400,
        code: 'VALIDATION_ERROR',
        details: { reason: 'invalid_body' },
      });
    }
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ limit: true }, 'VALIDATION_ERROR'],
      [{ fromDate: { at: '2026-03-01' } }, 'VALIDATION_ERROR'],
      [{ sortOrder: ['asc', false] }, 'VALIDATION_ERROR'],
      [{ callerNumber: { secret: '+15551234567' } }, 'INVALID_FILTER'],
      [{ channel: [['web']] }, 'INVALID_FILTER'],
      [{ traceDimensions: 'plan=pro' }, 'INVALID_FILTER'],
      [{ traceDimensions: { plan: { nested: 'x' } } }, 'INVALID_FILTER'],
    ];
    for (const [fields, code] of cases) {
      const error = errorOf(parseBody({ ...RANGE, ...fields }));
      expect(error).toMatchObject({ status: 400, code, details: { reason: 'invalid_type' } });
      expect(JSON.stringify(error)).not.toContain('15551234567');
    }
  });

  it('gives the GET’s codes for the GET’s refusals', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ containmentType: 'resolved' }, 'INVALID_CONTAINMENT_TYPE'],
      [{ environment: ['prod'] }, 'INVALID_ENVIRONMENT'],
      [{ status: 'failed' }, 'INVALID_STATUS'],
      [{ containmentType: Array(101).fill(CONTAINMENT_TYPE_FILTERS[0]) }, 'TOO_MANY_FILTER_VALUES'],
      [{ callerNumber: ['---'] }, 'INVALID_CALLER_NUMBER'],
      [{ channelUId: ['a', ''] }, 'INVALID_FILTER'],
      [{ limit: 0 }, 'VALIDATION_ERROR'],
      [{ offset: -1 }, 'VALIDATION_ERROR'],
      [{ limit: 1.5 }, 'VALIDATION_ERROR'],
    ];
    for (const [fields, code] of cases) {
      expect(errorOf(parseBody({ ...RANGE, ...fields })).code).toBe(code);
    }
    expect(errorOf(parseBody({ ...RANGE, callerNumber: '+15551234567' }, false))).toMatchObject({
      status: 403,
      code: 'CALLER_NUMBER_LOOKUP_DISABLED',
    });
  });

  it('keeps __proto__ as data', () => {
    const body = JSON.parse('{"__proto__": ["x"], "traceDimensions": {"__proto__": "y"}}') as unknown;
    const query = sessionSearchQuery(body);
    expect(query.ok).toBe(true);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('is the GET for any query written as a body (property)', () => {
    const names = ['fromDate', 'toDate', 'sessionIds', 'containmentType', 'status', 'limit', 'callerNumber'];
    const value = fc.oneof(
      fc.constantFrom(RANGE.fromDate, RANGE.toDate, 'escalated', 'active', '10', '+44 20 7946 0958', ''),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names), fc.array(value, { minLength: 1, maxLength: 3 })),
        fc.boolean(),
        (query, enabled) => {
          // The query's shape as Fastify gives it: one value as a string, repeats as an array.
          const get: AnalyticsQuery = Object.fromEntries(
            Object.entries(query).map(([k, v]) => [k, v.length === 1 ? v[0] : v]),
          );
          expect(parseBody(query, enabled)).toEqual(parse(get, enabled));
        },
      ),
      { numRuns: 300 },
    );
  });
});
