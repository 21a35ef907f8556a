import { randomUUID } from 'node:crypto';
import { openApiProblems } from '@parley/http/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnalyticsFixture, createAnalyticsFixture, sessionItems } from '../testing/analyticsFixture.js';

/**
 * POST …/sessions/search (spec 000 §4.2: the POST variant of the session list, path and body ours):
 * every answer of the GET for the same filters, byte for byte, and nothing of the filters in the URL.
 */
let f: AnalyticsFixture;
const base = (projectId = f.projectId) => `/api/public/analytics/projects/${projectId}/sessions`;
const key = () => ({ 'x-api-key': f.keys.analytics });
const post = (body: unknown, headers: Record<string, string> = key(), projectId = f.projectId) =>
  f.app.inject({
    method: 'POST',
    url: `${base(projectId)}/search`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
const get = (query: URLSearchParams, headers: Record<string, string> = key()) =>
  f.app.inject({ method: 'GET', url: `${base()}?${query}`, headers });

const DAY = { fromDate: '2026-04-01', toDate: '2026-04-02' };
const s1 = `sess_${randomUUID()}`; // web_chat, dev, +44 20 7946 0958, plan=pro, completed
const s2 = `sess_${randomUUID()}`; // voice_pipeline, production, 020 7946 0000, plan=free, active
const s3 = `sess_${randomUUID()}`; // sdk_web, staging, anonymous, plan=pro, escalated

beforeAll(async () => {
  f = await createAnalyticsFixture();
  await f.ingestAndProject([
    ...sessionItems(s1, '2026-04-01T09:00:00.000Z'),
    ...sessionItems(s2, '2026-04-01T10:00:00.000Z', {
      start: {
        channel: 'voice_pipeline',
        environment: 'production',
        channelUserId: 'user-2',
        callerNumber: '020 7946 0000',
        traceDimensions: { plan: 'free', region: 'eu' },
      },
      end: null,
    }),
    ...sessionItems(s3, '2026-04-01T11:00:00.000Z', {
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
}, 120_000);
afterAll(() => f?.close());

describe('POST /api/public/analytics/projects/{projectId}/sessions/search', () => {
  it('200: the GET’s page envelope, every field of a summary, freshness and no-store', async () => {
    const res = await post({ ...DAY, callerNumber: ['+44 20 7946 0958'], limit: 10 });
    expect(res.statusCode, res.body).toBe(200);
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
          id: s1,
          channel: 'web_chat',
          environment: 'dev',
          status: 'completed',
          containmentType: 'contained_resolved',
          createdAt: '2026-04-01T09:00:00.000Z',
          lastActivityAt: '2026-04-01T09:01:31.500Z',
          endedAt: '2026-04-01T09:05:00.000Z',
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
    // The GET with the same filter answers the same bytes.
    const same = await get(new URLSearchParams({ ...DAY, callerNumber: '+44 20 7946 0958', limit: '10' }));
    expect(same.body).toBe(res.body);
  });

  it('pages like the GET: offset, limit, hasMore', async () => {
    const page = (await post({ ...DAY, limit: 2, offset: 1 })).json();
    expect(page).toMatchObject({ total: 3, offset: 1, limit: 2, hasMore: false });
    expect(page.sessions).toHaveLength(2);
    expect((await post({ ...DAY, limit: 1 })).json()).toMatchObject({ total: 3, hasMore: true });
  });

  describe('400 and 403: the GET’s codes', () => {
    const cases: Array<[string, number, string, Record<string, unknown>]> = [
      ['containmentType', 400, 'INVALID_CONTAINMENT_TYPE', { containmentType: ['resolved'] }],
      ['environment', 400, 'INVALID_ENVIRONMENT', { environment: 'prod' }],
      ['status', 400, 'INVALID_STATUS', { status: 'failed' }],
      [
        'callerNumber count',
        400,
        'TOO_MANY_FILTER_VALUES',
        { callerNumber: Array(101).fill('+15550000000') },
      ],
      ['callerNumber entry', 400, 'INVALID_CALLER_NUMBER', { callerNumber: ['---'] }],
      ['channelUId empty', 400, 'INVALID_FILTER', { channelUId: ['a', ''] }],
      ['a filter of another type', 400, 'INVALID_FILTER', { channel: { web: true } }],
      ['limit', 400, 'VALIDATION_ERROR', { limit: 0 }],
      ['limit of another type', 400, 'VALIDATION_ERROR', { limit: true }],
    ];
    it.each(cases)('%s → %i %s', async (_name, status, code, fields) => {
      const res = await post({ ...DAY, ...fields });
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual({
        success: false,
        error: { code, message: expect.any(String), details: expect.any(Object) },
        message: res.json().error.message,
        required: expect.any(String),
      });
    });

    it('400 VALIDATION_ERROR without a date range or sessionIds, or for a body that is not an object', async () => {
      for (const body of [{}, { fromDate: DAY.fromDate }, '[]', '"fromDate=2026-04-01"']) {
        const res = await post(body);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
      }
    });

    it('never echoes a caller number', async () => {
      const res = await post({ ...DAY, callerNumber: ['+44207555', '---'] });
      expect(res.json().error.code).toBe('INVALID_CALLER_NUMBER');
      expect(res.body).not.toContain('44207555');
    });

    it('403 CALLER_NUMBER_LOOKUP_DISABLED when the project disables identity fields', async () => {
      const project = await f.auth.createProject({
        tenantId: (await f.auth.getProject(f.projectId))!.tenantId,
        slug: 'private-search',
        settings: { reporting: { identityFields: false } },
      });
      const { key: privateKey } = await f.auth.createApiKey({
        projectId: project.id,
        scopes: ['analytics.read'],
      });
      const headers = { 'x-api-key': privateKey };
      const refused = await post({ ...DAY, callerNumber: '+442079460958' }, headers, project.id);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({
        success: false,
        error: { code: 'CALLER_NUMBER_LOOKUP_DISABLED', details: { parameter: 'callerNumber' } },
      });
      expect((await post(DAY, headers, project.id)).statusCode).toBe(200);
    });
  });

  describe('authentication and limits', () => {
    it('401 authentication envelope: missing key, unknown key, key sent only as Bearer', async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        { 'x-api-key': `plat_${'x'.repeat(55)}` },
        { authorization: `Bearer ${f.keys.analytics}` },
      ];
      for (const headers of attempts) {
        const res = await post(DAY, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: expect.any(String), requestId: expect.any(String) });
      }
    });

    it('403 PLATFORM_API_KEY_REQUIRED for a pk_ key, 403 PERMISSION_REQUIRED without session_summary:read', async () => {
      const pk = await post(DAY, { 'x-api-key': 'pk_live_abcdef' });
      expect(pk.statusCode).toBe(403);
      expect(pk.json()).toMatchObject({ success: false, error: { code: 'PLATFORM_API_KEY_REQUIRED' } });
      const ingestOnly = await post(DAY, { 'x-api-key': f.keys.ingest });
      expect(ingestOnly.statusCode).toBe(403);
      expect(ingestOnly.json()).toMatchObject({
        error: { code: 'PERMISSION_REQUIRED' },
        required: 'session_summary:read',
      });
    });

    it('404 PROJECT_NOT_FOUND for a key of another project, the same body whether the project exists or not', async () => {
      const headers = { 'x-api-key': f.keys.otherProject };
      const existing = await post(DAY, headers);
      const missing = await post(DAY, headers, 'proj_doesnotexist00');
      expect(existing.statusCode).toBe(404);
      expect(existing.json()).toMatchObject({ success: false, error: { code: 'PROJECT_NOT_FOUND' } });
      expect(missing.body).toBe(existing.body);
    });

    it('413 for a body over 1 MB; 415 for a body that is not JSON', async () => {
      const big = await post({
        ...DAY,
        sessionIds: Array.from({ length: 60_000 }, (_, i) => `sess_${i}_padding_padding`),
      });
      expect(big.statusCode).toBe(413);
      expect(big.json()).toMatchObject({ success: false, error: { code: 'PAYLOAD_TOO_LARGE' } });
      const form = await f.app.inject({
        method: 'POST',
        url: `${base()}/search`,
        headers: { ...key(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(DAY).toString(),
      });
      expect(form.statusCode).toBe(415);
    });

    it('429 in the analytics envelope once the tenant is over its rate', async () => {
      const limited = await f.makeApp(1);
      try {
        const send = () =>
          limited.inject({
            method: 'POST',
            url: `${base()}/search`,
            headers: { ...key(), 'content-type': 'application/json' },
            payload: DAY,
          });
        expect((await send()).statusCode).toBe(200);
        const second = await send();
        expect(second.statusCode).toBe(429);
        expect(second.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
      } finally {
        await limited.close();
      }
    });
  });

  it('answers exactly what the GET answers, refusals included, for random filters (property)', async () => {
    const values: Record<string, string[]> = {
      fromDate: [DAY.fromDate, '2026-04-01T10:30:00Z', 'yesterday', ''],
      toDate: [DAY.toDate, '2026-04-01T10:30:00+02:00', '2026-03-01'],
      sessionIds: [s1, s2, s3, `${s1},${s3}`, 'sess_unknown', ''],
      containmentType: ['contained_resolved', 'escalated', 'resolved', 'escalated,contained'],
      environment: ['dev', 'staging', 'production', 'prod', 'dev,staging'],
      channelUId: ['user-1', 'user-2', 'user-3', '', 'a,'],
      callerNumber: ['+44 20 7946 0958', '442079460958', '020 7946 0000', 'Anonymous', '---', ' ', 'x,y'],
      channel: ['web', 'voice_pipeline', 'web_chat', 'made_up', ''],
      status: ['active', 'completed', 'escalated', 'failed', ''],
      limit: ['1', '2', '100', '0', '10001', 'ten'],
      offset: ['0', '1', '-1'],
      sortBy: ['createdAt', 'estimatedCost', 'nope'],
      sortOrder: ['asc', 'desc', 'up'],
    };
    const names = Object.keys(values);
    const filters = fc.record({
      params: fc.dictionary(
        fc.constantFrom(...names),
        fc.array(fc.nat(100), { minLength: 1, maxLength: 3 }),
        { maxKeys: 6 },
      ),
      dimensions: fc.dictionary(
        fc.constantFrom('plan', 'region'),
        fc.constantFrom('pro', 'free', 'eu', 'us'),
      ),
    });
    await fc.assert(
      fc.asyncProperty(filters, async ({ params, dimensions }) => {
        const body: Record<string, unknown> = {};
        const query = new URLSearchParams();
        for (const [name, picks] of Object.entries(params)) {
          const pool = values[name] ?? [];
          const chosen = picks.map((i) => pool[i % pool.length] ?? '');
          body[name] = chosen.length === 1 ? chosen[0] : chosen;
          for (const value of chosen) query.append(name, value);
        }
        if (Object.keys(dimensions).length > 0) body.traceDimensions = dimensions;
        for (const [k, v] of Object.entries(dimensions)) query.append(`traceDimensions[${k}]`, v);
        const [byPost, byGet] = [await post(body), await get(query)];
        expect(byPost.statusCode, `${query}`).toBe(byGet.statusCode);
        const strip = (text: string) => {
          const json = JSON.parse(text) as Record<string, unknown>;
          // Errors carry their request's own id only in the 401 envelope; everything else is equal.
          delete json.requestId;
          return json;
        };
        expect(strip(byPost.body), `${query}`).toEqual(strip(byGet.body));
      }),
      { numRuns: 120 },
    );
  }, 120_000);

  it('is in the OpenAPI documents with its body and the GET’s responses', async () => {
    const doc = (await f.app.inject('/openapi.json')).json();
    const op = doc.paths['/api/public/analytics/projects/{projectId}/sessions/search'].post;
    expect(op.operationId).toBe('searchSessionSummaries');
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
    const props = op.requestBody.content['application/json'].schema.properties;
    expect(Object.keys(props)).toEqual(
      expect.arrayContaining([
        'fromDate',
        'toDate',
        'sessionIds',
        'callerNumber',
        'traceDimensions',
        'status',
      ]),
    );
    const get = doc.paths['/api/public/analytics/projects/{projectId}/sessions'].get;
    expect(op.responses['200']).toEqual(get.responses['200']);
    expect(
      openApiProblems(doc, [
        { method: 'POST', url: '/api/public/analytics/projects/:projectId/sessions/search' },
      ]),
    ).toEqual([]);
    const analytics = (await f.app.inject('/openapi/analytics.json')).json();
    expect(analytics.info.version).toBe('1.0.0');
    expect(analytics.paths['/api/public/analytics/projects/{projectId}/sessions/search'].post).toEqual(op);
  });
});
