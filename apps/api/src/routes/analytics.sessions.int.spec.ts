import { randomUUID } from 'node:crypto';
import { openApiProblems } from '@parley/http/testing';
import { projectionFreshness } from '@parley/projection-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsFixture, createAnalyticsFixture, sessionItems } from '../testing/analyticsFixture.js';

let f: AnalyticsFixture;
const path = (projectId = f.projectId) => `/api/public/analytics/projects/${projectId}/sessions`;
const get = (query: string, headers: Record<string, string> = { 'x-api-key': f.keys.analytics }) =>
  f.app.inject({ method: 'GET', url: `${path()}?${query}`, headers });
const ids = (body: { sessions: Array<{ id: string }> }) => body.sessions.map((s) => s.id).sort();

// Each test group uses its own day, so windows do not see other groups' sessions.
const HAPPY_DAY = 'fromDate=2026-01-01&toDate=2026-01-02';
const FILTER_DAY = 'fromDate=2026-02-01&toDate=2026-02-02';
const CAP_DAY = 'fromDate=2026-03-01&toDate=2026-03-02';

const happy = `sess_${randomUUID()}`;
const f1 = `sess_${randomUUID()}`; // web_chat, dev, +44…, plan=pro, completed/contained_resolved
const f2 = `sess_${randomUUID()}`; // voice_pipeline, production, 020…, plan=free, active
const f3 = `sess_${randomUUID()}`; // sdk_web, staging, Anonymous, plan=pro, escalated

beforeAll(async () => {
  f = await createAnalyticsFixture();
  await f.ingestAndProject([
    ...sessionItems(happy, '2026-01-01T10:00:00.000Z'),
    ...sessionItems(f1, '2026-02-01T09:00:00.000Z'),
    ...sessionItems(f2, '2026-02-01T10:00:00.000Z', {
      start: {
        channel: 'voice_pipeline',
        environment: 'production',
        channelUserId: 'user-2',
        callerNumber: '020 7946 0000',
        traceDimensions: { plan: 'free', region: 'eu' },
      },
      end: null,
    }),
    ...sessionItems(f3, '2026-02-01T11:00:00.000Z', {
      start: {
        channel: 'sdk_web',
        environment: 'staging',
        channelUserId: 'user-3',
        callerNumber: 'anonymous',
        traceDimensions: { plan: 'pro', region: 'us' },
      },
      end: { status: 'escalated', containmentType: 'escalated' },
    }),
  ]);
});
afterAll(() => f.close());

describe('GET /api/public/analytics/projects/{projectId}/sessions', () => {
  it('200: the page envelope, every field of a summary, freshness and no-store', async () => {
    const res = await get(`${HAPPY_DAY}&limit=10`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body)).toEqual([
      'success',
      'total',
      'offset',
      'limit',
      'hasMore',
      'sessions',
      'freshness',
    ]);
    expect(body).toEqual({
      success: true,
      total: 1,
      offset: 0,
      limit: 10,
      hasMore: false,
      sessions: [
        {
          id: happy,
          channel: 'web_chat',
          environment: 'dev',
          status: 'completed',
          containmentType: 'contained_resolved',
          createdAt: '2026-01-01T10:00:00.000Z',
          // the later call: 10:01:30 + 1.5 s of latency
          lastActivityAt: '2026-01-01T10:01:31.500Z',
          endedAt: '2026-01-01T10:05:00.000Z',
          messageCount: { user: 2, agent: 1, total: 3 },
          traceEventCount: { llm_call: 1, decision: 1, tool_call: 1, error: 1, total: 5 },
          tokenCount: {
            inputTokens: 150,
            cachedTokens: 20,
            completionTokens: 35,
            reasoningTokens: 10,
            outputTokens: 45,
            totalTokens: 195,
          },
          traceDimensions: { plan: 'pro', region: 'eu' },
          estimatedCost: 0.0128,
          durationMs: 300_000,
          idleDurationMs: 208_500,
          isTest: false,
        },
      ],
      freshness: { position: expect.stringMatching(/^\d+\/\d+$/), recordedAt: expect.any(String) },
    });
    // What the runner's registry says for the live generation (nothing was ingested since).
    const live = await projectionFreshness(f.db.pool, 'session-summaries');
    expect(body.freshness).toEqual({ position: live.position, recordedAt: live.recordedAt?.toISOString() });
  });

  it('defaults: limit 100, offset 0; offset pages on', async () => {
    const first = (await get(FILTER_DAY)).json();
    expect(first).toMatchObject({ total: 3, offset: 0, limit: 100, hasMore: false });
    const paged = (await get(`${FILTER_DAY}&limit=2&offset=1`)).json();
    expect(paged).toMatchObject({ total: 3, offset: 1, limit: 2, hasMore: false });
    expect(paged.sessions).toHaveLength(2);
    expect((await get(`${FILTER_DAY}&limit=1`)).json()).toMatchObject({ hasMore: true });
  });

  describe('filters through HTTP', () => {
    const cases: Array<[string, string[]]> = [
      [`sessionIds=${f1},${f3}`, [f1, f3]],
      [`sessionIds=${f1}&sessionIds=${f2}`, [f1, f2]],
      ['traceDimensions[plan]=pro', [f1, f3]],
      ['traceDimensions%5Bplan%5D=pro&traceDimensions%5Bregion%5D=us', [f3]],
      ['callerNumber=%2B44%2020%207946%200958', [f1]],
      ['callerNumber=+44 20 7946 0958', [f1]],
      ['callerNumber=442079460958, 020 7946 0000', [f1, f2]],
      ['callerNumber=Anonymous', [f3]],
      ['channel=web', [f1, f3]],
      ['channel=voice_vxml', [f2]],
      ['channel=made_up', []],
      ['environment=dev', [f1]],
      ['environment=dev,staging', [f1, f3]],
      ['containmentType=escalated', [f3]],
      ['containmentType=contained_resolved&containmentType=escalated', [f1, f3]],
      ['status=active', [f2]],
      ['status=completed&status=active', [f1]],
      ['channelUId=user-2,user-3', [f2, f3]],
      ['channel=web&environment=staging', [f3]],
      ['traceDimensions[region]=eu&status=completed&channel=web_chat', [f1]],
    ];
    it.each(cases)('%s', async (query, expected) => {
      const res = await get(`${FILTER_DAY}&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(ids(body)).toEqual([...expected].sort());
      expect(body.total).toBe(expected.length);
    });

    it('sessionIds replace the date range', async () => {
      const res = await get(`sessionIds=${happy},${f2}`);
      expect(ids(res.json())).toEqual([happy, f2].sort());
    });
  });

  describe('400 and 403 of the spec', () => {
    const cases: Array<[string, number, string]> = [
      ['containmentType=resolved', 400, 'INVALID_CONTAINMENT_TYPE'],
      ['environment=development', 400, 'INVALID_ENVIRONMENT'],
      ['environment=prod', 400, 'INVALID_ENVIRONMENT'],
      ['status=failed', 400, 'INVALID_STATUS'],
      [
        `callerNumber=${Array.from({ length: 101 }, (_, i) => `+4420794600${i}`).join(',')}`,
        400,
        'TOO_MANY_FILTER_VALUES',
      ],
      [`containmentType=${Array(101).fill('escalated').join(',')}`, 400, 'TOO_MANY_FILTER_VALUES'],
      ['callerNumber=---', 400, 'INVALID_CALLER_NUMBER'],
      [`callerNumber=${'1'.repeat(513)}`, 400, 'INVALID_CALLER_NUMBER'],
      ['channelUId=a,', 400, 'INVALID_FILTER'],
      ['limit=0', 400, 'VALIDATION_ERROR'],
      ['limit=10001', 400, 'VALIDATION_ERROR'],
      ['offset=-1', 400, 'VALIDATION_ERROR'],
    ];
    it.each(cases)('%s → %i %s', async (query, status, code) => {
      const res = await get(`${FILTER_DAY}&${query}`);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({
        success: false,
        error: { code, message: expect.any(String), details: expect.any(Object) },
        message: res.json().error.message,
        required: expect.any(String),
      });
    });

    it('never echoes a caller number', async () => {
      const res = await get(`${FILTER_DAY}&callerNumber=%2B44207,---`);
      expect(res.json().error.code).toBe('INVALID_CALLER_NUMBER');
      expect(res.body).not.toContain('44207');
    });

    it('400 VALIDATION_ERROR without a date range or sessionIds', async () => {
      for (const query of ['', 'fromDate=2026-02-01', 'toDate=2026-02-02']) {
        const res = await get(query);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          success: false,
          error: { code: 'VALIDATION_ERROR', details: { reason: 'missing_required' } },
          required: expect.stringContaining('sessionIds'),
        });
      }
    });

    it('403 CALLER_NUMBER_LOOKUP_DISABLED when the project disables identity fields', async () => {
      const project = await f.auth.createProject({
        tenantId: (await f.auth.getProject(f.projectId))!.tenantId,
        slug: 'private',
        settings: { reporting: { identityFields: false } },
      });
      const { key } = await f.auth.createApiKey({ projectId: project.id, scopes: ['analytics.read'] });
      const url = `${path(project.id)}?${FILTER_DAY}`;
      const refused = await f.app.inject({
        url: `${url}&callerNumber=%2B442079460958`,
        headers: { 'x-api-key': key },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({
        success: false,
        error: { code: 'CALLER_NUMBER_LOOKUP_DISABLED', details: { parameter: 'callerNumber' } },
      });
      const without = await f.app.inject({ url, headers: { 'x-api-key': key } });
      expect(without.statusCode).toBe(200);
    });
  });

  describe('authentication', () => {
    it('401 authentication envelope: missing key, unknown key, key sent only as Bearer', async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        { 'x-api-key': `plat_${'x'.repeat(55)}` },
        { authorization: `Bearer ${f.keys.analytics}` },
      ];
      for (const headers of attempts) {
        const res = await get(FILTER_DAY, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: expect.any(String), requestId: expect.any(String) });
      }
    });

    it('403 PLATFORM_API_KEY_REQUIRED for a pk_ key', async () => {
      const res = await get(FILTER_DAY, { 'x-api-key': 'pk_live_abcdef' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'PLATFORM_API_KEY_REQUIRED' } });
    });

    it('403 PERMISSION_REQUIRED for a key with only ingest.write', async () => {
      const res = await get(FILTER_DAY, { 'x-api-key': f.keys.ingest });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        success: false,
        error: { code: 'PERMISSION_REQUIRED', details: {} },
        required: 'session_summary:read',
      });
    });

    it('404 PROJECT_NOT_FOUND for a key of another project, the same body whether the project exists or not', async () => {
      const headers = { 'x-api-key': f.keys.otherProject };
      const existing = await f.app.inject({ url: `${path()}?${FILTER_DAY}`, headers });
      const missing = await f.app.inject({ url: `${path('proj_doesnotexist00')}?${FILTER_DAY}`, headers });
      expect(existing.statusCode).toBe(404);
      expect(missing.statusCode).toBe(404);
      expect(existing.json()).toMatchObject({ success: false, error: { code: 'PROJECT_NOT_FOUND' } });
      expect(missing.body).toBe(existing.body);
    });

    it('429 in the analytics envelope once the tenant is over its rate', async () => {
      const limited = await f.makeApp(2);
      try {
        const send = () =>
          limited.inject({ url: `${path()}?${FILTER_DAY}`, headers: { 'x-api-key': f.keys.analytics } });
        expect((await send()).headers['x-ratelimit-remaining']).toBe('1');
        await send();
        const third = await send();
        expect(third.statusCode).toBe(429);
        expect(third.headers['retry-after']).toBeDefined();
        expect(third.json()).toMatchObject({
          success: false,
          error: { code: 'RATE_LIMIT_EXCEEDED', details: { retryAfterMs: expect.any(Number) } },
        });
      } finally {
        await limited.close();
      }
    });
  });

  it('keeps the body within 1 MiB with large rows: hasMore true, total right', async () => {
    const big = 'x'.repeat(60_000);
    const items = Array.from({ length: 25 }, (_, i) =>
      sessionItems(`sess_cap_${i}_${randomUUID()}`, `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`, {
        start: { traceDimensions: { blob: big } },
      }).slice(0, 1),
    ).flat();
    await f.ingestAndProject(items);
    const res = await get(`${CAP_DAY}&limit=10000`);
    expect(res.statusCode).toBe(200);
    expect(Buffer.byteLength(res.body)).toBeLessThanOrEqual(1024 * 1024);
    const body = res.json();
    expect(body.total).toBe(25);
    expect(body.sessions.length).toBeLessThan(25);
    expect(body.sessions.length).toBeGreaterThan(10);
    expect(body.hasMore).toBe(true);
    const rest = (await get(`${CAP_DAY}&limit=10000&offset=${body.sessions.length}`)).json();
    expect(body.sessions.length + rest.sessions.length).toBe(25);
    expect(rest.hasMore).toBe(false);
  }, 90_000);

  it('is in the OpenAPI document with its parameters and responses', async () => {
    const doc = (await f.app.inject('/openapi.json')).json();
    const op = doc.paths['/api/public/analytics/projects/{projectId}/sessions'].get;
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
      'projectId',
      'fromDate',
      'toDate',
      'sessionIds',
      'containmentType',
      'environment',
      'channelUId',
      'callerNumber',
      'channel',
      'traceDimensions[key]',
      'status',
      'limit',
      'offset',
    ]) {
      expect(names).toContain(name);
    }
    expect(op.responses['200'].content['application/json'].schema.properties.freshness).toBeDefined();
    expect(
      openApiProblems(doc, [
        { method: 'GET', url: '/api/public/analytics/projects/:projectId/sessions' },
        { method: 'GET', url: '/api/public/analytics/projects/:projectId/llm-ledger' },
      ]),
    ).toEqual([]);
  });
});
