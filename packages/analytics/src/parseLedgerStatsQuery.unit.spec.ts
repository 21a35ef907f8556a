import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEDGER_STATS_BUCKETS, LEDGER_STATS_GROUP_BY } from './filters.js';
import { parseLedgerQuery } from './parseLedgerQuery.js';
import {
  BUCKET_MS,
  bucketCount,
  defaultBucket,
  MAX_BUCKETS,
  parseLedgerStatsQuery,
} from './parseLedgerStatsQuery.js';
import type { AnalyticsQuery } from './queryValues.js';
import { errorOf, okFilter, queryObjects, RANGE } from './testing/testQueries.js';

const parse = (query: AnalyticsQuery) => parseLedgerStatsQuery('p1', query);
const HOUR = BUCKET_MS.hour;
const DAY = BUCKET_MS.day;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const window = (startMs: number, spanMs: number) => ({
  fromDate: new Date(startMs).toISOString(),
  toDate: new Date(startMs + spanMs).toISOString(),
});

describe('defaultBucket and bucketCount', () => {
  it('defaults by window: ≤ 6 h minute, ≤ 14 d hour, else day (edges included)', () => {
    const at = (span: number) => defaultBucket(new Date(T0), new Date(T0 + span));
    expect(at(0)).toBe('minute');
    expect(at(6 * HOUR)).toBe('minute');
    expect(at(6 * HOUR + 1)).toBe('hour');
    expect(at(14 * DAY)).toBe('hour');
    expect(at(14 * DAY + 1)).toBe('day');
    expect(at(400 * DAY)).toBe('day');
  });

  it('counts the epoch-aligned buckets the window touches (brute force on small windows)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LEDGER_STATS_BUCKETS),
        fc.integer({ min: 0, max: 4 * DAY }),
        fc.integer({ min: 0, max: 30 }),
        (bucket, offset, units) => {
          const size = BUCKET_MS[bucket];
          const start = T0 + offset;
          const span = units * size + (offset % 7) * 997;
          const touched = new Set<number>();
          // Steps of one bucket from the start can skip none; the last millisecond closes the window.
          for (let t = start; t < start + span; t += size) touched.add(Math.floor(t / size));
          if (span > 0) touched.add(Math.floor((start + span - 1) / size));
          expect(bucketCount(new Date(start), new Date(start + span), bucket)).toBe(touched.size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the default never exceeds the cap for windows up to 999 days', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999 * DAY - 1 }),
        fc.integer({ min: 0, max: DAY }),
        (span, offset) => {
          const from = new Date(T0 + offset);
          const to = new Date(T0 + offset + span);
          expect(bucketCount(from, to, defaultBucket(from, to))).toBeLessThanOrEqual(MAX_BUCKETS);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('parseLedgerStatsQuery', () => {
  it('parses the range with the defaults (hour for a day, model)', () => {
    expect(okFilter(parse(RANGE))).toEqual({
      projectId: 'p1',
      from: new Date(RANGE.fromDate),
      to: new Date(RANGE.toDate),
      bucket: 'hour',
      groupBy: 'model',
    });
  });

  it('reads the ledger filters with the ledger parser (same values, same errors)', () => {
    const query = {
      ...RANGE,
      model: 'gpt-4o,unknown',
      source: 'Agent-Session',
      sourceSubtype: 'response_gen',
      status: 'failed',
      environment: 'development',
      agentName: 'support',
      channel: 'web_chat',
      channelType: 'widget',
      provider: 'openai',
      sessionIds: 'a,b',
    };
    const { bucket: _b, groupBy: _g, ...match } = okFilter(parse(query));
    const {
      sort: _s,
      dataMode: _d,
      limit: _l,
      offset: _o,
      ...ledgerMatch
    } = okFilter(parseLedgerQuery('p1', query));
    expect(match).toEqual(ledgerMatch);
    for (const bad of [
      { status: 'ok' },
      { model: '' },
      { environment: 'a,b,c,d,e' },
      { toDate: 'soon' },
      {},
    ]) {
      const q = Object.keys(bad).length === 0 ? { fromDate: RANGE.fromDate } : { ...RANGE, ...bad };
      expect(errorOf(parse(q))).toEqual(errorOf(parseLedgerQuery('p1', q)));
    }
  });

  it('ignores the ledger page controls (sortBy, limit, dataMode)', () => {
    expect(parse({ ...RANGE, sortBy: 'nope', limit: '0', dataMode: 'x' }).ok).toBe(true);
  });

  it('refuses more than 1000 buckets with VALIDATION_ERROR naming bucket', () => {
    const error = errorOf(parse({ ...window(T0, DAY), bucket: 'minute' }));
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      details: { parameter: 'bucket', reason: 'too_many_buckets', max: 1000, received: 1440 },
    });
    expect(okFilter(parse({ ...window(T0, 1000 * 60_000), bucket: 'minute' })).bucket).toBe('minute');
    expect(errorOf(parse({ ...window(T0 + 1, 1000 * 60_000), bucket: 'minute' })).details.received).toBe(
      1001,
    );
    expect(errorOf(parse(window(T0, 1001 * DAY))).details.parameter).toBe('bucket');
  });

  it('bucket and groupBy: property over arbitrary values', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom(...LEDGER_STATS_BUCKETS),
          fc.string({ maxLength: 8 }),
          fc.constant(undefined),
        ),
        fc.oneof(
          fc.constantFrom(...LEDGER_STATS_GROUP_BY),
          fc.string({ maxLength: 8 }),
          fc.constant(undefined),
        ),
        fc.integer({ min: 0, max: 60 * DAY }),
        (bucket, groupBy, span) => {
          const range = window(T0, span);
          const result = parse({ ...range, bucket, groupBy });
          const b = bucket?.trim() || defaultBucket(new Date(range.fromDate), new Date(range.toDate));
          const g = groupBy?.trim() || 'model';
          if (!(LEDGER_STATS_BUCKETS as readonly string[]).includes(b)) {
            expect(errorOf(result)).toMatchObject({
              code: 'VALIDATION_ERROR',
              details: { parameter: 'bucket' },
            });
          } else if (
            bucketCount(new Date(range.fromDate), new Date(range.toDate), b as never) > MAX_BUCKETS
          ) {
            expect(errorOf(result).details).toMatchObject({
              parameter: 'bucket',
              reason: 'too_many_buckets',
            });
          } else if (!(LEDGER_STATS_GROUP_BY as readonly string[]).includes(g)) {
            expect(errorOf(result)).toMatchObject({
              code: 'VALIDATION_ERROR',
              details: { parameter: 'groupBy' },
            });
          } else {
            expect(okFilter(result)).toMatchObject({ bucket: b, groupBy: g });
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary queries', () => {
    const names = ['fromDate', 'toDate', 'bucket', 'groupBy', 'model', 'status', 'source'];
    const values = [RANGE.fromDate, RANGE.toDate, 'minute', 'hour', 'day', 'model', 'provider', 'source'];
    fc.assert(
      fc.property(queryObjects(names, values), (query) => {
        const result = parse(query as AnalyticsQuery);
        if (!result.ok) expect(result.error.status).toBe(400);
      }),
      { numRuns: 300 },
    );
  });
});
