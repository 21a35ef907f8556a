import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandChannels } from './channelFamilies.js';
import {
  CONTAINMENT_TYPE_FILTERS,
  parseSessionListQuery,
  SESSION_STATUS_FILTERS,
} from './parseSessionListQuery.js';
import type { AnalyticsQuery } from './queryValues.js';
import { okFilter, queryObjects, RANGE } from './testing/testQueries.js';

const parse = (query: AnalyticsQuery) =>
  parseSessionListQuery('p1', query, { callerNumberLookupEnabled: true });

const NAMES = [
  'fromDate',
  'toDate',
  'sessionIds',
  'containmentType',
  'environment',
  'channelUId',
  'callerNumber',
  'channel',
  'traceDimensions[region]',
  'status',
  'limit',
  'offset',
];
const VALUES = [
  RANGE.fromDate,
  RANGE.toDate,
  '2026-03-01',
  ...CONTAINMENT_TYPE_FILTERS,
  ...SESSION_STATUS_FILTERS,
  'dev',
  'production',
  'web',
  'voice_realtime',
  '+44 20 7946 0958',
  'Anonymous',
  '0',
  '1',
  '100',
  '10000',
  's1',
];

describe('parseSessionListQuery properties', () => {
  it('never throws; results stay within the limits; errors carry a status and a code', () => {
    fc.assert(
      fc.property(queryObjects(NAMES, VALUES), fc.boolean(), (query, callerNumberLookupEnabled) => {
        const result = parseSessionListQuery('p1', query, { callerNumberLookupEnabled });
        if (!result.ok) {
          expect([400, 403]).toContain(result.error.status);
          expect(result.error.code).toMatch(/^[A-Z_]+$/);
          return;
        }
        const f = result.filter;
        expect(f.limit).toBeGreaterThanOrEqual(1);
        expect(f.limit).toBeLessThanOrEqual(10_000);
        expect(f.offset).toBeGreaterThanOrEqual(0);
        expect(f.from !== undefined && f.to !== undefined ? true : f.sessionIds !== undefined).toBe(true);
        expect(f.sessionIds?.length ?? 0).toBeLessThanOrEqual(10_000);
        expect(f.containmentTypes?.length ?? 0).toBeLessThanOrEqual(100);
        for (const c of f.containmentTypes ?? []) expect(CONTAINMENT_TYPE_FILTERS).toContain(c);
        for (const k of f.callerNumberKeys ?? []) expect(k.length).toBeLessThanOrEqual(128);
        if (f.status !== undefined) expect(SESSION_STATUS_FILTERS).toContain(f.status);
        if (f.callerNumberKeys !== undefined) expect(callerNumberLookupEnabled).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('is idempotent: a filter written back as a query parses to itself', () => {
    const queries = fc.oneof(
      queryObjects(NAMES, VALUES),
      queryObjects(NAMES, VALUES).map((q) => ({ ...q, ...RANGE })),
    );
    fc.assert(
      fc.property(queries, (query) => {
        const first = parse(query);
        if (!first.ok) return;
        const f = first.filter;
        const again = okFilter(
          parse({
            ...(f.from && { fromDate: f.from.toISOString() }),
            ...(f.to && { toDate: f.to.toISOString() }),
            ...(f.sessionIds && { sessionIds: f.sessionIds }),
            ...(f.containmentTypes && { containmentType: f.containmentTypes }),
            ...(f.channelUserIds && { channelUId: f.channelUserIds }),
            ...(f.callerNumberKeys && { callerNumber: f.callerNumberKeys }),
            ...(f.channels && { channel: f.channels }),
            ...(f.status && { status: f.status }),
            ...Object.fromEntries(
              Object.entries(f.traceDimensions ?? {}).map(([k, v]) => [`traceDimensions[${k}]`, v]),
            ),
            limit: String(f.limit),
            offset: String(f.offset),
          }),
        );
        const { environments: _e, ...rest } = f;
        const { environments: _e2, ...restAgain } = again;
        expect({ ...restAgain, channels: restAgain.channels?.slice().sort() }).toEqual({
          ...rest,
          channels: rest.channels?.slice().sort(),
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('channel expansion is idempotent', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('web', 'sdk_web', 'voice', 'voice_x', 'email', 'x')), (values) => {
        const once = expandChannels(values);
        expect(expandChannels(once).sort()).toEqual(once.slice().sort());
      }),
    );
  });
});
