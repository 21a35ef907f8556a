import { SESSION_SORT_FIELDS } from '@parley/analytics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsFixture,
  createAnalyticsFixture,
  llmCall,
  usage,
} from '../testing/analyticsFixture.js';

/**
 * sortBy / sortOrder on the session list (our extension of spec 000 §4.2). Four sessions whose
 * values tie pairwise on every key, so each order also checks the tiebreak (id, same direction):
 *
 * | id     | createdAt | lastActivityAt | estimatedCost | totalTokens | messageCount |
 * | sort-a | 10:00     | 10:30          | 0.5           | 100         | 1            |
 * | sort-b | 11:00     | 13:00          | 0.5           | 300         | 3            |
 * | sort-c | 12:00     | 12:30          | 0.1           | 100         | 1            |
 * | sort-d | 12:00     | 12:30          | 0.9           | 50          | 3            |
 */
let f: AnalyticsFixture;
const DAY = 'fromDate=2026-05-01&toDate=2026-05-02';
const path = () => `/api/public/analytics/projects/${f.projectId}/sessions`;
const get = (query: string) =>
  f.app.inject({ method: 'GET', url: `${path()}?${query}`, headers: { 'x-api-key': f.keys.analytics } });
const ids = (body: { sessions: Array<{ id: string }> }) => body.sessions.map((s) => s.id);

interface Row {
  id: string;
  createdAt: string;
  lastActivityAt: string;
  estimatedCost: number;
  tokenCount: { totalTokens: number };
  messageCount: { total: number };
}

const at = (hhmm: string) => `2026-05-01T${hhmm}:00.000Z`;
function session(
  id: string,
  start: string,
  cost: number,
  tokens: number,
  messages: string[],
  traceDimensions: Record<string, string> = {},
): object[] {
  const item = (suffix: string, type: string, data: Record<string, unknown>) => ({
    id: `${id}-${suffix}`,
    type,
    data: { sessionId: id, ...data },
  });
  return [
    item('start', 'session.started', {
      agentName: 'support',
      channel: 'web_chat',
      environment: 'production',
      traceDimensions,
      startedAt: at(start),
    }),
    // Ends 3 s after the start: before any message, so lastActivityAt is the last message.
    item('call', 'llm.call', {
      ...llmCall(id, 'call-1', new Date(Date.parse(at(start)) + 1_000).toISOString()),
      cost,
      usage: usage(tokens, 0, 0, 0),
      latencyMs: 2_000,
    }),
    ...messages.map((m, i) =>
      i % 2 === 0
        ? item(`m${i}`, 'message.user', { messageId: `m${i}`, text: 'hi', receivedAt: at(m) })
        : item(`m${i}`, 'message.agent', {
            messageId: `m${i}`,
            agentName: 'support',
            text: 'hello',
            repliedAt: at(m),
          }),
    ),
  ];
}

beforeAll(async () => {
  f = await createAnalyticsFixture();
  await f.ingestAndProject([
    ...session('sort-a', '10:00', 0.5, 100, ['10:30'], { plan: 'pro' }),
    ...session('sort-b', '11:00', 0.5, 300, ['11:01', '11:02', '13:00']),
    ...session('sort-c', '12:00', 0.1, 100, ['12:30']),
    ...session('sort-d', '12:00', 0.9, 50, ['12:10', '12:20', '12:30'], { plan: 'pro' }),
  ]);
});
afterAll(() => f.close());

describe('GET …/sessions sortBy / sortOrder', () => {
  it('the fixture holds the values of the table', async () => {
    const body = (await get(DAY)).json();
    const rows = Object.fromEntries(
      body.sessions.map((s: Row) => [
        s.id,
        [s.createdAt, s.lastActivityAt, s.estimatedCost, s.tokenCount.totalTokens, s.messageCount.total],
      ]),
    );
    expect(rows).toEqual({
      'sort-a': [at('10:00'), at('10:30'), 0.5, 100, 1],
      'sort-b': [at('11:00'), at('13:00'), 0.5, 300, 3],
      'sort-c': [at('12:00'), at('12:30'), 0.1, 100, 1],
      'sort-d': [at('12:00'), at('12:30'), 0.9, 50, 3],
    });
  });

  const desc: Record<(typeof SESSION_SORT_FIELDS)[number], string[]> = {
    createdAt: ['sort-d', 'sort-c', 'sort-b', 'sort-a'],
    lastActivityAt: ['sort-b', 'sort-d', 'sort-c', 'sort-a'],
    estimatedCost: ['sort-d', 'sort-b', 'sort-a', 'sort-c'],
    totalTokens: ['sort-b', 'sort-c', 'sort-a', 'sort-d'],
    messageCount: ['sort-d', 'sort-b', 'sort-c', 'sort-a'],
  };
  const asc: Record<(typeof SESSION_SORT_FIELDS)[number], string[]> = {
    createdAt: ['sort-a', 'sort-b', 'sort-c', 'sort-d'],
    lastActivityAt: ['sort-a', 'sort-c', 'sort-d', 'sort-b'],
    estimatedCost: ['sort-c', 'sort-a', 'sort-b', 'sort-d'],
    totalTokens: ['sort-d', 'sort-a', 'sort-c', 'sort-b'],
    messageCount: ['sort-a', 'sort-c', 'sort-b', 'sort-d'],
  };
  const cases = SESSION_SORT_FIELDS.flatMap((field) => [
    [field, 'desc', desc[field]] as const,
    [field, 'asc', asc[field]] as const,
  ]);

  it.each(cases)(
    'sortBy=%s&sortOrder=%s, ties by id in the same direction',
    async (field, order, expected) => {
      const res = await get(`${DAY}&sortBy=${field}&sortOrder=${order}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ success: true, total: 4, offset: 0, limit: 100, hasMore: false });
      expect(ids(res.json())).toEqual(expected);
      // Pages of two rows walk the same order.
      const first = (await get(`${DAY}&sortBy=${field}&sortOrder=${order}&limit=2`)).json();
      const second = (await get(`${DAY}&sortBy=${field}&sortOrder=${order}&limit=2&offset=2`)).json();
      expect([...ids(first), ...ids(second)]).toEqual(expected);
      expect([first.hasMore, second.hasMore]).toEqual([true, false]);
    },
  );

  it('defaults: createdAt desc; sortOrder alone applies to createdAt; sortBy alone is descending', async () => {
    expect(ids((await get(DAY)).json())).toEqual(desc.createdAt);
    expect(ids((await get(`${DAY}&sortOrder=asc`)).json())).toEqual(asc.createdAt);
    expect(ids((await get(`${DAY}&sortBy=estimatedCost`)).json())).toEqual(desc.estimatedCost);
  });

  it('combines with filters, sessionIds and traceDimensions', async () => {
    const byCost = `sortBy=estimatedCost&sortOrder=asc`;
    expect(ids((await get(`${DAY}&traceDimensions[plan]=pro&${byCost}`)).json())).toEqual([
      'sort-a',
      'sort-d',
    ]);
    expect(ids((await get(`sessionIds=sort-a,sort-b,sort-d&${byCost}`)).json())).toEqual([
      'sort-a',
      'sort-b',
      'sort-d',
    ]);
    expect(ids((await get(`${DAY}&traceDimensions[plan]=pro`)).json())).toEqual(['sort-d', 'sort-a']);
  });

  it('the page cache keys on the sort: each order served right after another at the same position', async () => {
    const plain = await get(DAY);
    const explicitDefault = await get(`${DAY}&sortBy=createdAt&sortOrder=desc`);
    expect(explicitDefault.body).toBe(plain.body);
    for (const [field, expected] of Object.entries(asc)) {
      const a = (await get(`${DAY}&sortBy=${field}&sortOrder=asc`)).json();
      expect(ids(a)).toEqual(expected);
      expect(a.freshness).toEqual(plain.json().freshness);
    }
    expect(ids((await get(DAY)).json())).toEqual(desc.createdAt);
  });

  describe('400 VALIDATION_ERROR naming the parameter, as the ledger answers it', () => {
    const cases: Array<[string, string, string]> = [
      ['sortBy=cost', 'sortBy', `sortBy: ${SESSION_SORT_FIELDS.join(', ')}`],
      ['sortBy=CreatedAt', 'sortBy', `sortBy: ${SESSION_SORT_FIELDS.join(', ')}`],
      ['sortBy=messageCount.total', 'sortBy', `sortBy: ${SESSION_SORT_FIELDS.join(', ')}`],
      ['sortOrder=DESC', 'sortOrder', 'sortOrder: asc, desc'],
      ['sortOrder=down&sortBy=totalTokens', 'sortOrder', 'sortOrder: asc, desc'],
    ];
    it.each(cases)('%s', async (query, parameter, required) => {
      const res = await get(`${DAY}&${query}`);
      expect(res.statusCode).toBe(400);
      const allowed = parameter === 'sortBy' ? [...SESSION_SORT_FIELDS] : ['asc', 'desc'];
      const message = `${parameter} must be one of ${allowed.join(', ')}`;
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message, details: { parameter, allowed } },
        message,
        required,
      });
    });

    it('the ledger answers a bad sortOrder with the same body', async () => {
      const ledger = await f.app.inject({
        url: `/api/public/analytics/projects/${f.projectId}/llm-ledger?${DAY}&sortOrder=DESC`,
        headers: { 'x-api-key': f.keys.analytics },
      });
      expect(ledger.statusCode).toBe(400);
      expect(ledger.body).toBe((await get(`${DAY}&sortOrder=DESC`)).body);
    });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await f.app.inject('/openapi.json')).json();
    const names = doc.paths['/api/public/analytics/projects/{projectId}/sessions'].get.parameters.map(
      (p: { name: string }) => p.name,
    );
    expect(names).toEqual(expect.arrayContaining(['sortBy', 'sortOrder']));
  });
});
