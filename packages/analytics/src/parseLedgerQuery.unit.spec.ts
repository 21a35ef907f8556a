import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LEDGER_SORT_FIELDS } from './filters.js';
import { parseLedgerQuery } from './parseLedgerQuery.js';
import type { AnalyticsQuery } from './queryValues.js';
import { CANONICAL_SOURCES } from './sourceAliases.js';
import { errorOf, many, okFilter, queryObjects, RANGE } from './testing/testQueries.js';

const parse = (query: AnalyticsQuery) => parseLedgerQuery('p1', query);
const codeOf = (query: AnalyticsQuery) => errorOf(parse(query)).code;

const DEFAULTS = {
  projectId: 'p1',
  from: new Date(RANGE.fromDate),
  to: new Date(RANGE.toDate),
  sort: { field: 'timestamp', direction: 'desc' },
  dataMode: 'summary',
  limit: 100,
  offset: 0,
};

describe('parseLedgerQuery: range, paging, sort, dataMode', () => {
  it('parses the required range with the defaults', () => {
    expect(okFilter(parse(RANGE))).toEqual(DEFAULTS);
  });

  it('requires both dates (sessionIds do not replace them): VALIDATION_ERROR', () => {
    expect(errorOf(parse({ sessionIds: 'a' }))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(errorOf(parse({ toDate: RANGE.toDate })).details).toMatchObject({ missing: ['fromDate'] });
    expect(codeOf({ ...RANGE, toDate: 'soon' })).toBe('VALIDATION_ERROR');
  });

  it('reads sortBy, sortOrder and dataMode, case-sensitive', () => {
    for (const field of LEDGER_SORT_FIELDS) {
      expect(okFilter(parse({ ...RANGE, sortBy: field, sortOrder: 'asc' })).sort).toEqual({
        field,
        direction: 'asc',
      });
    }
    expect(okFilter(parse({ ...RANGE, dataMode: 'full' })).dataMode).toBe('full');
    for (const [name, value] of [
      ['sortBy', 'latency'],
      ['sortBy', 'Cost'],
      ['sortOrder', 'DESC'],
      ['dataMode', 'everything'],
    ]) {
      expect(errorOf(parse({ ...RANGE, [name as string]: value })).details).toMatchObject({
        parameter: name,
      });
    }
  });

  it('reads limit and offset like the session list', () => {
    expect(okFilter(parse({ ...RANGE, limit: '10000', offset: '5' }))).toMatchObject({
      limit: 10_000,
      offset: 5,
    });
    expect(codeOf({ ...RANGE, limit: '0' })).toBe('VALIDATION_ERROR');
    expect(codeOf({ ...RANGE, limit: '10001' })).toBe('VALIDATION_ERROR');
    expect(codeOf({ ...RANGE, offset: '-3' })).toBe('VALIDATION_ERROR');
  });
});

describe('parseLedgerQuery: filters one by one', () => {
  it('sessionIds: up to 10,000', () => {
    expect(okFilter(parse({ ...RANGE, sessionIds: 'a,b,a' })).sessionIds).toEqual(['a', 'b']);
    expect(codeOf({ ...RANGE, sessionIds: many(10_001) })).toBe('TOO_MANY_FILTER_VALUES');
  });

  it('channel: exact, no family expansion; empty → INVALID_FILTER; 50 distinct', () => {
    expect(okFilter(parse({ ...RANGE, channel: 'web_chat' })).channels).toEqual(['web_chat']);
    expect(okFilter(parse({ ...RANGE, channel: 'voice_pipeline' })).channels).toEqual(['voice_pipeline']);
    expect(codeOf({ ...RANGE, channel: '' })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, channel: 'web_chat,' })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, channel: many(51) })).toBe('TOO_MANY_FILTER_VALUES');
    expect(codeOf({ ...RANGE, channel: 'c'.repeat(129) })).toBe('INVALID_FILTER');
  });

  it('channelType and agentName: exact values, empty → INVALID_FILTER, up to 100', () => {
    expect(
      okFilter(parse({ ...RANGE, channelType: 'whatsapp_cloud', agentName: ['Billing Agent'] })),
    ).toMatchObject({
      channelTypes: ['whatsapp_cloud'],
      agentNames: ['Billing Agent'],
    });
    expect(codeOf({ ...RANGE, agentName: '' })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, channelType: '' })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, agentName: many(101) })).toBe('TOO_MANY_FILTER_VALUES');
  });

  it('source: aliases, case and separators; empty → INVALID_FILTER', () => {
    expect(okFilter(parse({ ...RANGE, source: 'Agent-Session,eval,RUNTIME' })).sources).toEqual([
      'runtime',
      'evals',
    ]);
    expect(okFilter(parse({ ...RANGE, source: 'no_such_source' })).sources).toEqual(['no_such_source']);
    expect(codeOf({ ...RANGE, source: '' })).toBe('INVALID_FILTER');
  });

  it('sourceSubtype: older names translated, within the given source only', () => {
    expect(okFilter(parse({ ...RANGE, sourceSubtype: 'response_gen' })).sourceSubtypes).toEqual([
      'response_generation',
    ]);
    expect(
      okFilter(parse({ ...RANGE, source: 'agent_session', sourceSubtype: 'Response Gen' })).sourceSubtypes,
    ).toEqual(['response_generation']);
    expect(
      okFilter(parse({ ...RANGE, source: 'knowledge', sourceSubtype: 'response_gen' })).sourceSubtypes,
    ).toEqual(['response_gen']);
    expect(codeOf({ ...RANGE, sourceSubtype: ' ' })).toBe('INVALID_FILTER');
  });

  it('status: success or failed, else INVALID_STATUS', () => {
    expect(okFilter(parse({ ...RANGE, status: 'failed' })).status).toBe('failed');
    for (const status of ['error', 'Success', 'active']) {
      expect(errorOf(parse({ ...RANGE, status }))).toMatchObject({ status: 400, code: 'INVALID_STATUS' });
    }
  });

  it('model and provider: exact, `unknown` passes through, empty → INVALID_FILTER', () => {
    expect(okFilter(parse({ ...RANGE, model: 'gpt-4o,unknown', provider: 'unknown' }))).toMatchObject({
      models: ['gpt-4o', 'unknown'],
      providers: ['unknown'],
    });
    expect(codeOf({ ...RANGE, model: '' })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, provider: ['openai', ''] })).toBe('INVALID_FILTER');
  });

  it('environment: as stored (development, not dev), empty → INVALID_FILTER, up to 4', () => {
    expect(okFilter(parse({ ...RANGE, environment: 'development,working-copy' })).environments).toEqual([
      'development',
      'working-copy',
    ]);
    expect(okFilter(parse({ ...RANGE, environment: 'dev' })).environments).toEqual(['dev']);
    expect(codeOf({ ...RANGE, environment: '' })).toBe('INVALID_FILTER');
    expect(codeOf({ ...RANGE, environment: many(5) })).toBe('TOO_MANY_FILTER_VALUES');
  });
});

describe('parseLedgerQuery: filters combined', () => {
  it('returns every filter at once', () => {
    expect(
      okFilter(
        parse({
          ...RANGE,
          sessionIds: ['s1'],
          channel: 'twilio_sms',
          channelType: 'sms',
          source: 'guardrail',
          sourceSubtype: 'guardrails',
          status: 'success',
          model: 'gpt-4o',
          provider: 'openai',
          environment: 'production',
          agentName: 'Triage',
          sortBy: 'cost',
          sortOrder: 'asc',
          dataMode: 'full',
          limit: '25',
          offset: '50',
        }),
      ),
    ).toEqual({
      ...DEFAULTS,
      sessionIds: ['s1'],
      channels: ['twilio_sms'],
      channelTypes: ['sms'],
      sources: ['guardrails'],
      sourceSubtypes: ['guardrails'],
      status: 'success',
      models: ['gpt-4o'],
      providers: ['openai'],
      environments: ['production'],
      agentNames: ['Triage'],
      sort: { field: 'cost', direction: 'asc' },
      dataMode: 'full',
      limit: 25,
      offset: 50,
    });
  });
});

const NAMES = [
  'fromDate',
  'toDate',
  'sessionIds',
  'channel',
  'channelType',
  'source',
  'sourceSubtype',
  'status',
  'model',
  'provider',
  'environment',
  'agentName',
  'sortBy',
  'sortOrder',
  'dataMode',
  'limit',
  'offset',
];
const VALUES = [
  RANGE.fromDate,
  RANGE.toDate,
  ...CANONICAL_SOURCES,
  'agent_session',
  'response_gen',
  'success',
  'failed',
  'development',
  'unknown',
  'cost',
  'asc',
  'full',
  '1',
  '10000',
];

describe('parseLedgerQuery properties', () => {
  it('never throws; results stay within the limits', () => {
    fc.assert(
      fc.property(queryObjects(NAMES, VALUES), (query) => {
        const result = parse(query);
        if (!result.ok) {
          expect(result.error.status).toBe(400);
          return;
        }
        const f = result.filter;
        expect(f.from.getTime()).toBeLessThanOrEqual(f.to.getTime());
        expect(f.limit).toBeGreaterThanOrEqual(1);
        expect(f.limit).toBeLessThanOrEqual(10_000);
        expect(f.offset).toBeGreaterThanOrEqual(0);
        expect(LEDGER_SORT_FIELDS).toContain(f.sort.field);
        expect(f.channels?.length ?? 0).toBeLessThanOrEqual(50);
        for (const list of [f.channels, f.models, f.providers, f.environments, f.agentNames, f.sources]) {
          for (const v of list ?? []) expect(v).not.toBe('');
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('is idempotent: a filter written back as a query parses to itself', () => {
    const withRange = queryObjects(NAMES, VALUES).map((q) => ({ ...q, ...RANGE }));
    fc.assert(
      fc.property(withRange, (query) => {
        const first = parse(query);
        if (!first.ok) return;
        const f = first.filter;
        const again = parse({
          fromDate: f.from.toISOString(),
          toDate: f.to.toISOString(),
          ...(f.sessionIds && { sessionIds: f.sessionIds }),
          ...(f.channels && { channel: f.channels }),
          ...(f.channelTypes && { channelType: f.channelTypes }),
          ...(f.sources && { source: f.sources }),
          ...(f.sourceSubtypes && { sourceSubtype: f.sourceSubtypes }),
          ...(f.status && { status: f.status }),
          ...(f.models && { model: f.models }),
          ...(f.providers && { provider: f.providers }),
          ...(f.environments && { environment: f.environments }),
          ...(f.agentNames && { agentName: f.agentNames }),
          sortBy: f.sort.field,
          sortOrder: f.sort.direction,
          dataMode: f.dataMode,
          limit: String(f.limit),
          offset: String(f.offset),
        });
        expect(okFilter(again)).toEqual(f);
      }),
      { numRuns: 2000 },
    );
  });
});
