import { randomUUID } from 'node:crypto';
import { sourceLabel, sourceSubtypeLabel } from '@parley/analytics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnalyticsFixture,
  createAnalyticsFixture,
  sessionItems,
  usage,
} from '../testing/analyticsFixture.js';

let f: AnalyticsFixture;
const path = (projectId = f.projectId) => `/api/public/analytics/projects/${projectId}/llm-ledger`;
const get = (query: string, headers: Record<string, string> = { 'x-api-key': f.keys.analytics }) =>
  f.app.inject({ method: 'GET', url: `${path()}?${query}`, headers });
const callIds = (body: { generations: Array<{ callId: string }> }) => body.generations.map((g) => g.callId);

const DAY = 'fromDate=2026-01-01&toDate=2026-01-02';
const CAP_DAY = 'fromDate=2026-03-01&toDate=2026-03-02';
const session = `sess_${randomUUID()}`;

/** A design-time call (no session, environment or channel): stream llm-<projectId>. */
const designTimeCall = (callId: string, startedAt: string, extra: Record<string, unknown> = {}) => ({
  id: `dt-${callId}`,
  type: 'llm.call',
  data: {
    callId,
    provider: 'anthropic',
    model: 'claude-sonnet',
    agentName: 'architect',
    status: 'success',
    statusCode: 200,
    streamingUsed: false,
    cost: 0.002,
    source: 'arch',
    sourceSubtype: 'agent_building',
    startedAt,
    usage: usage(400, 0, 100, 0),
    latencyMs: 200,
    timeToFirstTokenMs: 200,
    ...extra,
  },
});

beforeAll(async () => {
  f = await createAnalyticsFixture();
  await f.ingestAndProject([
    ...sessionItems(session, '2026-01-01T10:00:00.000Z'),
    designTimeCall('dt-1', '2026-01-01T12:00:00.000Z'),
  ]);
});
afterAll(() => f.close());

async function eventIdOf(stream: string, callId: string): Promise<string> {
  for await (const event of f.store.readStream(stream)) {
    if (event.type === 'LlmCallRecorded' && (event.data as { callId: string }).callId === callId) {
      return event.eventId;
    }
  }
  throw new Error(`no event for ${callId}`);
}

describe('GET /api/public/analytics/projects/{projectId}/llm-ledger', () => {
  it('200: the page envelope and every field of the records (strings never null), dataMode=full with payload', async () => {
    const res = await get(`${DAY}&dataMode=full&sortBy=timestamp&sortOrder=asc&limit=50`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body)).toEqual([
      'success',
      'statusCode',
      'total',
      'limit',
      'offset',
      'dataMode',
      'hasMore',
      'generations',
      'freshness',
    ]);
    expect(body).toEqual({
      success: true,
      statusCode: 200,
      total: 3,
      limit: 50,
      offset: 0,
      dataMode: 'full',
      hasMore: false,
      generations: [
        {
          id: `${session}:call-1`,
          model: 'gpt-4o',
          agentName: 'support',
          provider: 'openai',
          environment: 'development',
          status: 'success',
          inputTokens: 100,
          cachedTokens: 20,
          completionTokens: 30,
          reasoningTokens: 10,
          outputTokens: 40,
          totalTokens: 140,
          latencyMs: 3_000,
          timeToFirstTokenMs: 800,
          streamingUsed: true,
          cost: 0.0123,
          timestamp: '2026-01-01T10:00:06.000Z',
          sessionId: session,
          callId: 'call-1',
          traceId: 'trace-1',
          eventId: await eventIdOf(`session-${session}`, 'call-1'),
          source: 'runtime',
          sourceSubtype: 'response_generation',
          sourceLabel: sourceLabel('runtime'),
          sourceSubtypeLabel: sourceSubtypeLabel('response_generation', 'runtime'),
          sourceId: 'agent-v3',
          channel: 'web_chat',
          channelType: 'widget',
          statusCode: 200,
          payloadState: 'available',
          payload: { prompt: [{ role: 'user', content: 'Hello' }], response: { content: 'Hi' } },
        },
        {
          id: `${session}:call-2`,
          model: 'unknown',
          agentName: 'support',
          provider: 'unknown',
          environment: 'development',
          status: 'failed',
          inputTokens: 50,
          cachedTokens: 0,
          completionTokens: 5,
          reasoningTokens: 0,
          outputTokens: 5,
          totalTokens: 55,
          latencyMs: 1_500,
          timeToFirstTokenMs: 1_500,
          streamingUsed: false,
          cost: 0.0005,
          timestamp: '2026-01-01T10:01:30.000Z',
          sessionId: session,
          callId: 'call-2',
          traceId: '',
          eventId: await eventIdOf(`session-${session}`, 'call-2'),
          source: 'runtime',
          sourceSubtype: 'tool_use_iteration',
          sourceLabel: sourceLabel('runtime'),
          sourceSubtypeLabel: sourceSubtypeLabel('tool_use_iteration', 'runtime'),
          sourceId: '',
          channel: 'web_chat',
          channelType: '',
          statusCode: 500,
          payloadState: 'not_stored',
        },
        {
          id: `${f.projectId}:dt-1`,
          model: 'claude-sonnet',
          agentName: 'architect',
          provider: 'anthropic',
          environment: '',
          status: 'success',
          inputTokens: 400,
          cachedTokens: 0,
          completionTokens: 100,
          reasoningTokens: 0,
          outputTokens: 100,
          totalTokens: 500,
          latencyMs: 200,
          timeToFirstTokenMs: 200,
          streamingUsed: false,
          cost: 0.002,
          timestamp: '2026-01-01T12:00:00.000Z',
          sessionId: '',
          callId: 'dt-1',
          traceId: '',
          eventId: await eventIdOf(`llm-${f.projectId}`, 'dt-1'),
          source: 'arch',
          sourceSubtype: 'project_assistance',
          sourceLabel: sourceLabel('arch'),
          sourceSubtypeLabel: sourceSubtypeLabel('project_assistance', 'arch'),
          sourceId: '',
          channel: '',
          channelType: '',
          statusCode: 200,
          payloadState: 'not_stored',
        },
      ],
      freshness: { position: expect.stringMatching(/^\d+\/\d+$/), recordedAt: expect.any(String) },
    });
  });

  it('summary mode (the default) never carries payload; defaults limit 100, offset 0, newest first', async () => {
    const body = (await get(DAY)).json();
    expect(body).toMatchObject({ dataMode: 'summary', limit: 100, offset: 0, total: 3 });
    expect(callIds(body)).toEqual(['dt-1', 'call-2', 'call-1']);
    expect(body.generations.every((g: object) => !('payload' in g))).toBe(true);
  });

  describe('filters and sort through HTTP', () => {
    const cases: Array<[string, string[]]> = [
      ['status=failed', ['call-2']],
      ['model=unknown', ['call-2']],
      ['model=gpt-4o,claude-sonnet', ['call-1', 'dt-1']],
      ['provider=openai&provider=anthropic', ['call-1', 'dt-1']],
      ['channel=web_chat', ['call-1', 'call-2']],
      ['channel=web', []],
      ['channelType=widget', ['call-1']],
      ['environment=development', ['call-1', 'call-2']],
      ['environment=dev', []],
      ['source=Agent-Session', ['call-1', 'call-2']],
      ['source=arch&sourceSubtype=agent_building', ['dt-1']],
      ['sourceSubtype=response_gen', ['call-1']],
      ['agentName=architect', ['dt-1']],
      [`sessionIds=${session}`, ['call-1', 'call-2']],
      [`sessionIds=${session},other&status=success&channel=web_chat`, ['call-1']],
      ['sortBy=latencyMs&sortOrder=asc', ['dt-1', 'call-2', 'call-1']],
      ['sortBy=cost&sortOrder=desc', ['call-1', 'dt-1', 'call-2']],
      ['sortBy=totalTokens&sortOrder=asc', ['call-2', 'call-1', 'dt-1']],
      ['sortBy=timestamp&sortOrder=asc&limit=1&offset=1', ['call-2']],
    ];
    it.each(cases)('%s', async (query, expected) => {
      const res = await get(`${DAY}&${query}`);
      expect(res.statusCode, res.body).toBe(200);
      // Without sortBy: timestamp, newest first.
      const newestFirst = ['dt-1', 'call-2', 'call-1'].filter((id) => expected.includes(id));
      expect(callIds(res.json())).toEqual(query.includes('sortBy') ? expected : newestFirst);
    });
  });

  describe('400 of the spec', () => {
    const cases: Array<[string, string]> = [
      ['status=ok', 'INVALID_STATUS'],
      ['status=Success', 'INVALID_STATUS'],
      ['model=', 'INVALID_FILTER'],
      ['provider=', 'INVALID_FILTER'],
      ['channel=', 'INVALID_FILTER'],
      ['source=', 'INVALID_FILTER'],
      ['sourceSubtype=', 'INVALID_FILTER'],
      ['environment=', 'INVALID_FILTER'],
      ['environment=a,b,c,d,e', 'TOO_MANY_FILTER_VALUES'],
      ['limit=0', 'VALIDATION_ERROR'],
      ['limit=10001', 'VALIDATION_ERROR'],
      ['offset=-1', 'VALIDATION_ERROR'],
      ['sortBy=price', 'VALIDATION_ERROR'],
      ['dataMode=everything', 'VALIDATION_ERROR'],
    ];
    it.each(cases)('%s → %s', async (query, code) => {
      const res = await get(`${DAY}&${query}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: { code, message: expect.any(String), details: expect.any(Object) },
        message: res.json().error.message,
        required: expect.any(String),
      });
    });

    it('400 VALIDATION_ERROR without fromDate and toDate (sessionIds do not replace them here)', async () => {
      for (const query of ['', `sessionIds=${session}`, 'fromDate=2026-01-01']) {
        const res = await get(query);
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          error: { code: 'VALIDATION_ERROR', details: { reason: 'missing_required' } },
        });
      }
    });
  });

  describe('authentication', () => {
    it('401 for a key sent only as Bearer, 403 PERMISSION_REQUIRED with required llm_ledger:read', async () => {
      const bearer = await get(DAY, { authorization: `Bearer ${f.keys.analytics}` });
      expect(bearer.statusCode).toBe(401);
      expect(bearer.json()).toEqual({ error: expect.any(String), requestId: expect.any(String) });
      const noScope = await get(DAY, { 'x-api-key': f.keys.ingest });
      expect(noScope.statusCode).toBe(403);
      expect(noScope.json()).toMatchObject({
        error: { code: 'PERMISSION_REQUIRED' },
        required: 'llm_ledger:read',
      });
    });

    it('403 PLATFORM_API_KEY_REQUIRED for a pk_ key; 404 PROJECT_NOT_FOUND for another project', async () => {
      expect((await get(DAY, { 'x-api-key': 'pk_live_abcdef' })).json()).toMatchObject({
        error: { code: 'PLATFORM_API_KEY_REQUIRED' },
      });
      const headers = { 'x-api-key': f.keys.otherProject };
      const existing = await f.app.inject({ url: `${path()}?${DAY}`, headers });
      const missing = await f.app.inject({ url: `${path('proj_doesnotexist00')}?${DAY}`, headers });
      expect(existing.statusCode).toBe(404);
      expect(existing.json()).toMatchObject({ error: { code: 'PROJECT_NOT_FOUND' } });
      expect(missing.body).toBe(existing.body);
    });
  });

  it('keeps a full page within 1 MiB with large payloads: hasMore true, total right', async () => {
    const prompt = 'p'.repeat(100_000);
    await f.ingestAndProject(
      Array.from({ length: 15 }, (_, i) =>
        designTimeCall(`cap-${i}`, `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`, {
          payload: { prompt, response: { content: 'ok' } },
        }),
      ),
    );
    const full = await get(`${CAP_DAY}&dataMode=full&limit=10000`);
    expect(full.statusCode).toBe(200);
    expect(Buffer.byteLength(full.body)).toBeLessThanOrEqual(1024 * 1024);
    const body = full.json();
    expect(body.total).toBe(15);
    expect(body.generations.length).toBeGreaterThan(5);
    expect(body.generations.length).toBeLessThan(15);
    expect(body.hasMore).toBe(true);
    expect(body.generations.every((g: { payload?: unknown }) => g.payload !== undefined)).toBe(true);
    const summary = (await get(`${CAP_DAY}&limit=10000`)).json();
    expect(summary).toMatchObject({ total: 15, hasMore: false });
    expect(summary.generations).toHaveLength(15);
  }, 90_000);

  it('is in the OpenAPI document with its parameters and responses', async () => {
    const doc = (await f.app.inject('/openapi.json')).json();
    const op = doc.paths['/api/public/analytics/projects/{projectId}/llm-ledger'].get;
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
      'limit',
      'offset',
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
    ]) {
      expect(names).toContain(name);
    }
  });
});
