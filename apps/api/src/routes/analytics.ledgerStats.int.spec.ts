import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsFixture,
  createAnalyticsFixture,
  llmCall,
  usage,
} from '../testing/analyticsFixture.js';

/**
 * GET …/llm-ledger/stats over a small known ledger (2026-02-01, UTC). Percentiles by hand
 * (percentile_cont: linear between the closest ranks, position (n − 1)·p, then rounded half up):
 *
 * | call | model         | provider  | source        | at    | status  | cost  | in  | out | latency |
 * | g1   | gpt-4o        | openai    | agent_session | 10:05 | success | 0.01  | 100 | 50  | 100     |
 * | g2   | gpt-4o        | openai    | agent_session | 10:20 | success | 0.02  | 200 | 100 | 200     |
 * | g3   | gpt-4o        | openai    | agent_session | 10:40 | failed  | 0.005 | 10  | 0   | 1000    |
 * | g4   | gpt-4o        | openai    | agent_session | 11:10 | success | 0.03  | 300 | 150 | 400     |
 * | c1   | claude-sonnet | anthropic | arch          | 10:30 | success | 0.002 | 400 | 100 | 301     |
 * | c2   | claude-sonnet | anthropic | arch          | 12:00 | success | 0.004 | 400 | 100 | 500     |
 * | u1   | (none)        | (none)    | runtime       | 10:50 | failed  | 0     | 50  | 5   | 1500    |
 * | x1   | gpt-4o        | openai    | agent_session | 02-02 00:00 (outside the window)           |
 *
 * gpt-4o 10:00 [100, 200, 1000]: p50 200; p95 at 1.9: 200 + 0.9·800 = 920.
 * gpt-4o window [100, 200, 400, 1000]: p50 at 1.5: 300; p95 at 2.85: 400 + 0.85·600 = 910.
 * claude window [301, 500]: p50 400.5 → 401 (half up); p95 301 + 0.95·199 = 490.05 → 490.
 */
let f: AnalyticsFixture;
const DAY = 'fromDate=2026-02-01&toDate=2026-02-02';
const path = (projectId = f.projectId) => `/api/public/analytics/projects/${projectId}/llm-ledger/stats`;
const get = (query: string, headers: Record<string, string> = { 'x-api-key': f.keys.analytics }) =>
  f.app.inject({ method: 'GET', url: `${path()}?${query}`, headers });

const at = (hhmm: string, day = '01') => `2026-02-${day}T${hhmm}:00.000Z`;
const call = (
  callId: string,
  startedAt: string,
  data: { cost: number; input: number; output: number; latencyMs: number; failed?: boolean },
  identity: Record<string, unknown>,
) => ({
  id: `stats-${callId}`,
  type: 'llm.call',
  data: {
    ...llmCall('unused', callId, startedAt),
    sessionId: undefined,
    environment: undefined,
    channel: undefined,
    channelType: undefined,
    traceId: undefined,
    sourceId: undefined,
    payload: undefined,
    ...identity,
    status: data.failed ? 'failed' : 'success',
    statusCode: data.failed ? 500 : 200,
    cost: data.cost,
    usage: usage(data.input, 0, data.output, 0),
    latencyMs: data.latencyMs,
    timeToFirstTokenMs: data.latencyMs,
  },
});
const GPT = { model: 'gpt-4o', provider: 'openai', source: 'agent_session', sourceSubtype: 'response_gen' };
const CLAUDE = {
  model: 'claude-sonnet',
  provider: 'anthropic',
  source: 'arch',
  sourceSubtype: 'agent_building',
};
const NONE = {
  model: undefined,
  provider: undefined,
  source: 'runtime',
  sourceSubtype: 'tool_use_iteration',
};

beforeAll(async () => {
  f = await createAnalyticsFixture();
  await f.ingestAndProject([
    call('g1', at('10:05'), { cost: 0.01, input: 100, output: 50, latencyMs: 100 }, GPT),
    call('g2', at('10:20'), { cost: 0.02, input: 200, output: 100, latencyMs: 200 }, GPT),
    call('g3', at('10:40'), { cost: 0.005, input: 10, output: 0, latencyMs: 1000, failed: true }, GPT),
    call('g4', at('11:10'), { cost: 0.03, input: 300, output: 150, latencyMs: 400 }, GPT),
    call('c1', at('10:30'), { cost: 0.002, input: 400, output: 100, latencyMs: 301 }, CLAUDE),
    call('c2', at('12:00'), { cost: 0.004, input: 400, output: 100, latencyMs: 500 }, CLAUDE),
    call('u1', at('10:50'), { cost: 0, input: 50, output: 5, latencyMs: 1500, failed: true }, NONE),
    call('x1', at('00:00', '02'), { cost: 9, input: 1, output: 1, latencyMs: 1 }, GPT),
  ]);
});
afterAll(() => f.close());

const point = (t: string, p: Record<string, number>) => ({
  t,
  calls: p.calls,
  failed: p.failed,
  cost: p.cost,
  inputTokens: p.inputTokens,
  outputTokens: p.outputTokens,
  totalTokens: (p.inputTokens ?? 0) + (p.outputTokens ?? 0),
  latencyP50Ms: p.p50,
  latencyP95Ms: p.p95,
});
const SERIES = {
  gpt: [
    point(at('10:00'), {
      calls: 3,
      failed: 1,
      cost: 0.035,
      inputTokens: 310,
      outputTokens: 150,
      p50: 200,
      p95: 920,
    }),
    point(at('11:00'), {
      calls: 1,
      failed: 0,
      cost: 0.03,
      inputTokens: 300,
      outputTokens: 150,
      p50: 400,
      p95: 400,
    }),
  ],
  claude: [
    point(at('10:00'), {
      calls: 1,
      failed: 0,
      cost: 0.002,
      inputTokens: 400,
      outputTokens: 100,
      p50: 301,
      p95: 301,
    }),
    point(at('12:00'), {
      calls: 1,
      failed: 0,
      cost: 0.004,
      inputTokens: 400,
      outputTokens: 100,
      p50: 500,
      p95: 500,
    }),
  ],
  none: [
    point(at('10:00'), {
      calls: 1,
      failed: 1,
      cost: 0,
      inputTokens: 50,
      outputTokens: 5,
      p50: 1500,
      p95: 1500,
    }),
  ],
};
const TOTALS = {
  gpt: { calls: 4, failed: 1, cost: 0.065, totalTokens: 910, latencyP50Ms: 300, latencyP95Ms: 910 },
  claude: { calls: 2, failed: 0, cost: 0.006, totalTokens: 1000, latencyP50Ms: 401, latencyP95Ms: 490 },
  none: { calls: 1, failed: 1, cost: 0, totalTokens: 55, latencyP50Ms: 1500, latencyP95Ms: 1500 },
};

describe('GET /api/public/analytics/projects/{projectId}/llm-ledger/stats', () => {
  it('200: every field of the known dataset, grouped by model, hourly (the default for a day)', async () => {
    const res = await get(DAY);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body)).toEqual([
      'success',
      'bucket',
      'groupBy',
      'fromDate',
      'toDate',
      'series',
      'totals',
      'freshness',
    ]);
    expect(body).toEqual({
      success: true,
      bucket: 'hour',
      groupBy: 'model',
      fromDate: '2026-02-01T00:00:00.000Z',
      toDate: '2026-02-02T00:00:00.000Z',
      series: [
        { key: 'gpt-4o', points: SERIES.gpt },
        { key: 'claude-sonnet', points: SERIES.claude },
        { key: 'unknown', points: SERIES.none },
      ],
      totals: [
        { key: 'gpt-4o', ...TOTALS.gpt },
        { key: 'claude-sonnet', ...TOTALS.claude },
        { key: 'unknown', ...TOTALS.none },
      ],
      freshness: { position: expect.stringMatching(/^\d+\/\d+$/), recordedAt: expect.any(String) },
    });
  });

  it('groupBy=provider and groupBy=source (canonical names; runtime merges the two runtime sources)', async () => {
    const provider = (await get(`${DAY}&groupBy=provider`)).json();
    expect(provider.groupBy).toBe('provider');
    expect(provider.series.map((s: { key: string }) => s.key)).toEqual(['openai', 'anthropic', 'unknown']);
    expect(provider.totals[0]).toEqual({ key: 'openai', ...TOTALS.gpt });
    const source = (await get(`${DAY}&groupBy=source`)).json();
    expect(source.totals).toEqual([
      // [100, 200, 400, 1000, 1500]: p50 400; p95 at 3.8: 1000 + 0.8·500 = 1400.
      {
        key: 'runtime',
        calls: 5,
        failed: 2,
        cost: 0.065,
        totalTokens: 965,
        latencyP50Ms: 400,
        latencyP95Ms: 1400,
      },
      { key: 'arch', ...TOTALS.claude },
    ]);
    expect(source.series[0].points[0]).toEqual(
      // [100, 200, 1000, 1500]: p50 600; p95 at 2.85: 1000 + 0.85·500 = 1425.
      point(at('10:00'), {
        calls: 4,
        failed: 2,
        cost: 0.035,
        inputTokens: 360,
        outputTokens: 155,
        p50: 600,
        p95: 1425,
      }),
    );
  });

  it('bucket=day and bucket=minute (a 6 h window defaults to minute)', async () => {
    const day = (await get(`${DAY}&bucket=day`)).json();
    expect(day.bucket).toBe('day');
    expect(day.series[0].points).toEqual([
      point(at('00:00'), {
        calls: 4,
        failed: 1,
        cost: 0.065,
        inputTokens: 610,
        outputTokens: 300,
        p50: 300,
        p95: 910,
      }),
    ]);
    const minute = (await get('fromDate=2026-02-01T09:00:00Z&toDate=2026-02-01T15:00:00Z')).json();
    expect(minute.bucket).toBe('minute');
    expect(minute.series[0].points.map((p: { t: string }) => p.t)).toEqual([
      at('10:05'),
      at('10:20'),
      at('10:40'),
      at('11:10'),
    ]);
    const week = (await get('fromDate=2026-01-28&toDate=2026-02-04')).json();
    expect(week.bucket).toBe('hour');
    expect(week.totals[0]).toMatchObject({ key: 'gpt-4o', calls: 5 });
    expect((await get('fromDate=2026-01-01&toDate=2026-03-01')).json().bucket).toBe('day');
  });

  it('applies the ledger filters; an empty match is empty series', async () => {
    const failed = (await get(`${DAY}&status=failed`)).json();
    expect(failed.totals.map((t: { key: string; calls: number }) => [t.key, t.calls])).toEqual([
      ['gpt-4o', 1],
      ['unknown', 1],
    ]);
    const claude = (await get(`${DAY}&model=claude-sonnet&source=arch`)).json();
    expect(claude.series).toEqual([{ key: 'claude-sonnet', points: SERIES.claude }]);
    expect((await get(`${DAY}&provider=unknown&groupBy=provider`)).json().totals).toEqual([
      { key: 'unknown', ...TOTALS.none },
    ]);
    const none = (await get(`${DAY}&agentName=nobody`)).json();
    expect(none).toMatchObject({ success: true, series: [], totals: [] });
  });

  it('folds groups beyond the 19 costliest into "other" when there are more than 20 (a stored "other" joins it)', async () => {
    const models = Array.from({ length: 22 }, (_, i) => i + 1);
    const name = (i: number) => `model-${String(i).padStart(2, '0')}`;
    await f.ingestAndProject([
      ...models.map((i) =>
        call(
          `fold-${i}`,
          at('10:00', '05'),
          { cost: i / 1000, input: i, output: 0, latencyMs: i * 10 },
          { ...GPT, model: name(i) },
        ),
      ),
      // A model really named `other`, among the costliest 19 by nothing: it joins the folded series.
      call(
        'fold-other',
        at('10:30', '05'),
        { cost: 0.0005, input: 4, output: 0, latencyMs: 40 },
        { ...GPT, model: 'other' },
      ),
    ]);
    const body = (await get('fromDate=2026-02-05&toDate=2026-02-06')).json();
    // model-22 … model-04 keep their keys; model-01..03 and the stored `other` (0.0065 together)
    // are `other`, between model-07 (0.007) and model-06 (0.006).
    const keys = [...models.slice(6).reverse().map(name), 'other', 'model-06', 'model-05', 'model-04'];
    expect(body.series.map((s: { key: string }) => s.key)).toEqual(keys);
    expect(body.series).toHaveLength(20);
    expect(body.totals.map((t: { key: string }) => t.key)).toEqual(keys);
    // latencies [10, 20, 30, 40]: p50 25; p95 at 2.85: 30 + 0.85·10 = 38.5 → 39 (half up).
    const other = {
      key: 'other',
      calls: 4,
      failed: 0,
      cost: 0.0065,
      totalTokens: 10,
      latencyP50Ms: 25,
      latencyP95Ms: 39,
    };
    expect(body.totals[16]).toEqual(other);
    expect(body.series[16].points).toEqual([
      point(at('10:00', '05'), {
        calls: 4,
        failed: 0,
        cost: 0.0065,
        inputTokens: 10,
        outputTokens: 0,
        p50: 25,
        p95: 39,
      }),
    ]);
    expect(body.totals[0]).toEqual({
      key: 'model-22',
      calls: 1,
      failed: 0,
      cost: 0.022,
      totalTokens: 22,
      latencyP50Ms: 220,
      latencyP95Ms: 220,
    });
    // The same numbers with a filter that leaves 20 groups: no folding, the stored `other` is itself.
    const few = (await get('fromDate=2026-02-05&toDate=2026-02-06&model=other,model-01,model-02')).json();
    expect(few.totals.map((t: { key: string; calls: number }) => [t.key, t.calls])).toEqual([
      ['model-02', 1],
      ['model-01', 1],
      ['other', 1],
    ]);
  });

  describe('errors (the ledger envelope, one test per code)', () => {
    const envelope = (code: string) => ({
      success: false,
      error: { code, message: expect.any(String), details: expect.any(Object) },
      message: expect.any(String),
      required: expect.any(String),
    });
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ['', 'VALIDATION_ERROR', { reason: 'missing_required', missing: ['fromDate', 'toDate'] }],
      ['fromDate=2026-02-02&toDate=2026-02-01', 'VALIDATION_ERROR', { parameter: 'fromDate' }],
      [`${DAY}&bucket=week`, 'VALIDATION_ERROR', { parameter: 'bucket', allowed: ['minute', 'hour', 'day'] }],
      [
        `${DAY}&bucket=minute`,
        'VALIDATION_ERROR',
        { parameter: 'bucket', reason: 'too_many_buckets', max: 1000, received: 1440 },
      ],
      ['fromDate=2020-01-01&toDate=2023-01-01', 'VALIDATION_ERROR', { parameter: 'bucket', received: 1096 }],
      [
        `${DAY}&groupBy=agentName`,
        'VALIDATION_ERROR',
        { parameter: 'groupBy', allowed: ['model', 'provider', 'source'] },
      ],
      [`${DAY}&status=ok`, 'INVALID_STATUS', { parameter: 'status' }],
      [`${DAY}&model=`, 'INVALID_FILTER', { parameter: 'model', reason: 'empty' }],
      [`${DAY}&environment=a,b,c,d,e`, 'TOO_MANY_FILTER_VALUES', { parameter: 'environment', max: 4 }],
    ];
    it.each(cases)('400 %s → %s', async (query, code, details) => {
      const res = await get(query);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(envelope(code));
      expect(res.json().error.details).toMatchObject(details);
    });

    it('400 bucket: required says the cap; a bad groupBy lists the values', async () => {
      expect((await get(`${DAY}&bucket=minute`)).json().required).toBe(
        'bucket: at most 1000 buckets in the window',
      );
      expect((await get(`${DAY}&groupBy=x`)).json().required).toBe('groupBy: model, provider, source');
    });

    it('401 for a missing key or a key sent only as Bearer (the authentication envelope)', async () => {
      for (const headers of [{}, { authorization: `Bearer ${f.keys.analytics}` }] as Record<
        string,
        string
      >[]) {
        const res = await get(DAY, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: expect.any(String), requestId: expect.any(String) });
      }
    });

    it('403 PERMISSION_REQUIRED (llm_ledger:read) before the query is read', async () => {
      const res = await get('bucket=week', { 'x-api-key': f.keys.ingest });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        error: { code: 'PERMISSION_REQUIRED' },
        required: 'llm_ledger:read',
      });
    });

    it('403 PLATFORM_API_KEY_REQUIRED for a pk_ key', async () => {
      const res = await get(DAY, { 'x-api-key': 'pk_live_abcdef' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'PLATFORM_API_KEY_REQUIRED' } });
    });

    it('404 PROJECT_NOT_FOUND for another project, the same body whether it exists or not', async () => {
      const headers = { 'x-api-key': f.keys.otherProject };
      const existing = await f.app.inject({ url: `${path()}?${DAY}`, headers });
      const missing = await f.app.inject({ url: `${path('proj_doesnotexist00')}?${DAY}`, headers });
      expect(existing.statusCode).toBe(404);
      expect(existing.json()).toMatchObject({ success: false, error: { code: 'PROJECT_NOT_FOUND' } });
      expect(missing.body).toBe(existing.body);
    });

    it('429 RATE_LIMIT_EXCEEDED in the analytics envelope', async () => {
      const limited = await f.makeApp(1);
      try {
        const send = () =>
          limited.inject({ url: `${path()}?${DAY}`, headers: { 'x-api-key': f.keys.analytics } });
        expect((await send()).statusCode).toBe(200);
        const second = await send();
        expect(second.statusCode).toBe(429);
        expect(second.headers['retry-after']).toBeDefined();
        expect(second.json()).toMatchObject({
          success: false,
          error: { code: 'RATE_LIMIT_EXCEEDED', details: { retryAfterMs: expect.any(Number) } },
        });
      } finally {
        await limited.close();
      }
    });
  });

  it('is in the OpenAPI document with its parameters and responses', async () => {
    const doc = (await f.app.inject('/openapi.json')).json();
    const op = doc.paths['/api/public/analytics/projects/{projectId}/llm-ledger/stats'].get;
    expect(op.operationId).toBe('llmLedgerStats');
    expect(Object.keys(op.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '414',
      '429',
      '431',
      '503',
    ]);
    const names = op.parameters.map((p: { name: string }) => p.name);
    for (const name of [
      'fromDate',
      'toDate',
      'bucket',
      'groupBy',
      'model',
      'provider',
      'source',
      'agentName',
    ]) {
      expect(names).toContain(name);
    }
  });
});
