import { describe, expect, it } from 'vitest';
import { parseSessionListQuery } from './parseSessionListQuery.js';
import type { AnalyticsQuery } from './queryValues.js';
import { errorOf, many, okFilter, RANGE } from './testing/testQueries.js';

const enabled = { callerNumberLookupEnabled: true };
const parse = (query: AnalyticsQuery, options = enabled) => parseSessionListQuery('p1', query, options);
const codeOf = (query: AnalyticsQuery, options = enabled) => errorOf(parse(query, options)).code;

describe('parseSessionListQuery: range, ids and paging', () => {
  it('parses the date range with defaults limit 100, offset 0', () => {
    expect(okFilter(parse(RANGE))).toEqual({
      projectId: 'p1',
      from: new Date('2026-03-01T00:00:00Z'),
      to: new Date('2026-03-02T00:00:00Z'),
      limit: 100,
      offset: 0,
    });
  });

  it('accepts sessionIds instead of the range, comma-separated or repeated, duplicates merged', () => {
    expect(okFilter(parse({ sessionIds: ['a,b', ' c ', 'a,'] }))).toEqual({
      projectId: 'p1',
      sessionIds: ['a', 'b', 'c'],
      limit: 100,
      offset: 0,
    });
  });

  it('takes one bound together with sessionIds', () => {
    expect(okFilter(parse({ sessionIds: 'a', fromDate: '2026-03-01' })).from).toEqual(
      new Date('2026-03-01T00:00:00Z'),
    );
  });

  it('accepts 10,000 session ids and refuses 10,001 with TOO_MANY_FILTER_VALUES', () => {
    expect(okFilter(parse({ sessionIds: many(10_000).join(',') })).sessionIds).toHaveLength(10_000);
    const error = errorOf(parse({ sessionIds: many(10_001) }));
    expect(error).toMatchObject({ status: 400, code: 'TOO_MANY_FILTER_VALUES' });
    expect(error.details).toMatchObject({ parameter: 'sessionIds', max: 10_000 });
  });

  it('requires both dates or sessionIds: VALIDATION_ERROR', () => {
    expect(errorOf(parse({}))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(errorOf(parse({ fromDate: RANGE.fromDate })).details).toMatchObject({ missing: ['toDate'] });
    expect(codeOf({ sessionIds: ' , ' })).toBe('VALIDATION_ERROR');
  });

  it.each(['yesterday', '2026-02-30', '2026-03-01T25:00:00Z', '1709251200'])(
    'refuses the date %j with VALIDATION_ERROR',
    (fromDate) => {
      expect(errorOf(parse({ ...RANGE, fromDate })).details).toMatchObject({
        parameter: 'fromDate',
        reason: 'invalid_date',
      });
    },
  );

  it('refuses fromDate after toDate, accepts an empty window', () => {
    expect(codeOf({ fromDate: RANGE.toDate, toDate: RANGE.fromDate })).toBe('VALIDATION_ERROR');
    expect(parse({ fromDate: RANGE.fromDate, toDate: RANGE.fromDate }).ok).toBe(true);
  });

  it('reads limit 1..10000 and offset >= 0', () => {
    expect(okFilter(parse({ ...RANGE, limit: '1', offset: '20' }))).toMatchObject({ limit: 1, offset: 20 });
    expect(okFilter(parse({ ...RANGE, limit: '10000' })).limit).toBe(10_000);
  });

  it.each([
    ['limit', '0'],
    ['limit', '10001'],
    ['limit', 'ten'],
    ['limit', '1.5'],
    ['limit', '-1'],
    ['offset', '-1'],
    ['offset', '1e3'],
    ['offset', '99999999999999999'],
  ])('refuses %s=%j with VALIDATION_ERROR', (name, value) => {
    expect(errorOf(parse({ ...RANGE, [name]: value })).details).toMatchObject({ parameter: name });
  });
});

describe('parseSessionListQuery: filters one by one', () => {
  it('containmentType: comma-separated or repeated, case-sensitive, up to 100', () => {
    expect(
      okFilter(parse({ ...RANGE, containmentType: ['contained,escalated', 'contained'] })),
    ).toMatchObject({ containmentTypes: ['contained', 'escalated'] });
    expect(codeOf({ ...RANGE, containmentType: 'Contained' })).toBe('INVALID_CONTAINMENT_TYPE');
    expect(codeOf({ ...RANGE, containmentType: '' })).toBe('INVALID_CONTAINMENT_TYPE');
    expect(parse({ ...RANGE, containmentType: Array(100).fill('abandoned') }).ok).toBe(true);
    expect(codeOf({ ...RANGE, containmentType: Array(101).fill('abandoned') })).toBe(
      'TOO_MANY_FILTER_VALUES',
    );
  });

  it('environment: dev matches both stored spellings; prod and development are refused', () => {
    expect(okFilter(parse({ ...RANGE, environment: 'dev,staging' })).environments).toEqual([
      'dev',
      'development',
      'staging',
    ]);
    for (const environment of ['prod', 'development', 'Dev', '']) {
      expect(codeOf({ ...RANGE, environment })).toBe('INVALID_ENVIRONMENT');
    }
    expect(parse({ ...RANGE, environment: ['dev', 'staging', 'production', 'working-copy'] }).ok).toBe(true);
    expect(codeOf({ ...RANGE, environment: 'dev,dev,dev,dev,dev' })).toBe('TOO_MANY_FILTER_VALUES');
  });

  it('channelUId: up to 100 values of at least 1 character', () => {
    expect(okFilter(parse({ ...RANGE, channelUId: ['U1', 'U2,U1'] })).channelUserIds).toEqual(['U1', 'U2']);
    expect(parse({ ...RANGE, channelUId: many(100) }).ok).toBe(true);
    expect(codeOf({ ...RANGE, channelUId: many(101) })).toBe('TOO_MANY_FILTER_VALUES');
    expect(codeOf({ ...RANGE, channelUId: 'U1,' })).toBe('INVALID_FILTER');
  });

  it('callerNumber: keyed, comma-separated with spaces, + sent as a space', () => {
    const filter = okFilter(
      parse({ ...RANGE, callerNumber: ['+44 20 7946 0958, Anonymous', ' 442079460958', 'sip:alice@x'] }),
    );
    expect(filter.callerNumberKeys).toEqual(['+442079460958', 'Anonymous', 'alice']);
  });

  it('callerNumber: more than 100 entries, counted before duplicates merge', () => {
    expect(parse({ ...RANGE, callerNumber: Array(100).fill('+15550000000') }).ok).toBe(true);
    expect(codeOf({ ...RANGE, callerNumber: Array(101).fill('+15550000000').join(',') })).toBe(
      'TOO_MANY_FILTER_VALUES',
    );
  });

  it.each([
    ['empty', ''],
    ['an empty entry', '+15550000000,,+15550000001'],
    ['no letter or digit', '+-()'],
    ['over 512 characters', `+1${'5'.repeat(511)}`],
  ])('callerNumber: %s gives INVALID_CALLER_NUMBER without echoing the value', (_, callerNumber) => {
    const error = errorOf(parse({ ...RANGE, callerNumber }));
    expect(error).toMatchObject({ status: 400, code: 'INVALID_CALLER_NUMBER' });
    expect(JSON.stringify(error)).not.toContain('15550000000');
    expect(JSON.stringify(error)).not.toContain('+-()');
  });

  it('callerNumber: 512 characters are accepted', () => {
    expect(parse({ ...RANGE, callerNumber: 'a'.repeat(512) }).ok).toBe(true);
  });

  it('callerNumber: 403 CALLER_NUMBER_LOOKUP_DISABLED before any other check', () => {
    const error = errorOf(
      parse({ callerNumber: '+15550000000', limit: '0' }, { callerNumberLookupEnabled: false }),
    );
    expect(error).toMatchObject({ status: 403, code: 'CALLER_NUMBER_LOOKUP_DISABLED' });
    expect(parse(RANGE, { callerNumberLookupEnabled: false }).ok).toBe(true);
  });

  it('channel: families expanded, unknown values kept (they match nothing)', () => {
    const web = okFilter(parse({ ...RANGE, channel: 'web_chat' })).channels;
    expect(web).toEqual(expect.arrayContaining(['web', 'sdk_web', 'web_chat']));
    expect(okFilter(parse({ ...RANGE, channel: 'sdk_web' })).channels?.sort()).toEqual(web?.sort());
    const voice = okFilter(parse({ ...RANGE, channel: 'voice_pipeline' })).channels;
    expect(voice).toEqual(
      expect.arrayContaining(['voice', 'voice_vxml', 'voice_pipeline', 'voice_realtime']),
    );
    expect(okFilter(parse({ ...RANGE, channel: 'email,no_such_channel' })).channels).toEqual([
      'email',
      'no_such_channel',
    ]);
  });

  it('channel: up to 50 distinct values of at most 128 characters', () => {
    expect(parse({ ...RANGE, channel: [...many(50), ...many(50)] }).ok).toBe(true);
    expect(codeOf({ ...RANGE, channel: many(51) })).toBe('TOO_MANY_FILTER_VALUES');
    expect(parse({ ...RANGE, channel: 'c'.repeat(128) }).ok).toBe(true);
    expect(codeOf({ ...RANGE, channel: 'c'.repeat(129) })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, channel: '' })).toBe('INVALID_FILTER');
  });

  it('traceDimensions[key]: every key must match; first value per key; not split on commas', () => {
    const filter = okFilter(
      parse({
        ...RANGE,
        'traceDimensions[region]': ['eu,west', 'us'],
        'traceDimensions%5Btier%5D': 'gold',
        'traceDimensions[empty]': '',
      }),
    );
    expect(filter.traceDimensions).toEqual({ region: 'eu,west', tier: 'gold', empty: '' });
  });

  it('traceDimensions: a qs-style nested object is read too', () => {
    const query = { ...RANGE, traceDimensions: { region: 'eu' } } as unknown as AnalyticsQuery;
    expect(okFilter(parse(query)).traceDimensions).toEqual({ region: 'eu' });
  });

  it('traceDimensions: empty key → INVALID_FILTER, more than 20 keys → TOO_MANY_FILTER_VALUES', () => {
    expect(codeOf({ ...RANGE, 'traceDimensions[]': 'x' })).toBe('INVALID_FILTER');
    const keys = Object.fromEntries(many(21, 'k').map((k) => [`traceDimensions[${k}]`, 'v']));
    expect(codeOf({ ...RANGE, ...keys })).toBe('TOO_MANY_FILTER_VALUES');
  });

  it('traceDimensions: a __proto__ key stays data', () => {
    const filter = okFilter(parse({ ...RANGE, 'traceDimensions[__proto__]': 'x' }));
    expect(Object.getPrototypeOf(filter.traceDimensions)).toBe(Object.prototype);
    expect(Object.hasOwn(filter.traceDimensions ?? {}, '__proto__')).toBe(true);
  });

  it('status: only the first value, case-sensitive; failed is refused', () => {
    expect(okFilter(parse({ ...RANGE, status: ['ended', 'bogus'] })).status).toBe('ended');
    for (const status of ['failed', 'Active', 'active,idle']) {
      expect(errorOf(parse({ ...RANGE, status }))).toMatchObject({ status: 400, code: 'INVALID_STATUS' });
    }
  });
});

describe('parseSessionListQuery: filters combined', () => {
  it('returns every filter at once', () => {
    expect(
      okFilter(
        parse({
          ...RANGE,
          sessionIds: 's1,s2',
          containmentType: 'contained_resolved',
          environment: 'production',
          channelUId: 'U9',
          callerNumber: '+44 (0)20 7946 0958',
          channel: 'email',
          'traceDimensions[region]': 'eu',
          status: 'completed',
          limit: '50',
          offset: '100',
          unrelated: 'ignored',
        }),
      ),
    ).toEqual({
      projectId: 'p1',
      from: new Date(RANGE.fromDate),
      to: new Date(RANGE.toDate),
      sessionIds: ['s1', 's2'],
      containmentTypes: ['contained_resolved'],
      environments: ['production'],
      channelUserIds: ['U9'],
      callerNumberKeys: ['+442079460958'],
      channels: ['email'],
      traceDimensions: { region: 'eu' },
      status: 'completed',
      limit: 50,
      offset: 100,
    });
  });
});
