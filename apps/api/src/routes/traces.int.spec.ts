import { createHmac, randomUUID } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { toAppend, upcast } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import {
  comparePositions,
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  START,
} from '@parley/eventstore';
import { createInProcessRateLimiter, createJwtVerifier } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { createTraceReads, TRACE_CSV_COLUMNS, tracesProjection } from '@parley/projection-traces';
import { exampleSession, parseCsv } from '@parley/projection-traces/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

let db: TestDatabase;
let store: PostgresEventStore;
let runner: ProjectionRunner;
let auth: AuthStore;
let app: FastifyInstance;
let projectId: string;
let otherProjectId: string;
let tenantId: string;
let key: string;
let analyticsKey: string;
let otherKey: string;
const sessionId = `sess_${randomUUID()}`;
const emptySessionId = `sess_${randomUUID()}`;
const JWT_SECRET = 'test-secret-of-at-least-32-bytes-long!!';
let last: Position = START;
let example: ReturnType<typeof exampleSession>;

async function append(stream: string, events: readonly EventToAppend[]): Promise<void> {
  for (let i = 0; i < events.length; i += 500) {
    const { position } = await store.append(stream, events.slice(i, i + 500));
    if (comparePositions(position, last) > 0) last = position;
  }
}

async function caughtUp(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const [status] = await projectionStatus(db.pool, store, [tracesProjection]);
    const live = status?.generations.find((g) => g.generation === status.liveGeneration);
    if (live && comparePositions(live.checkpoint, last) >= 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('traces did not catch up');
}

/** An HS256 JWT, signed by hand (node:crypto) as the identity provider would. */
function jwt(claims: Record<string, unknown>): string {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations, authMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [tracesProjection],
    pollIntervalMs: 20,
  });
  await runner.start();
  auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  tenantId = tenant.id;
  projectId = (await auth.createProject({ tenantId, slug: 'support', name: 'Support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales', name: 'Sales' })).id;
  key = (await auth.createApiKey({ projectId, name: 'traces', scopes: ['traces.read'] })).key;
  analyticsKey = (await auth.createApiKey({ projectId, name: 'analytics', scopes: ['analytics.read'] })).key;
  otherKey = (await auth.createApiKey({ projectId: otherProjectId, name: 'o', scopes: ['traces.read'] })).key;

  example = exampleSession(projectId, sessionId);
  await append(example.stream, example.events);
  await append(`session-${emptySessionId}`, [
    toAppend('SessionStarted', { ...eventExamples.SessionStarted, projectId, sessionId: emptySessionId }),
  ]);
  await caughtUp();
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    traces: {
      verifyApiKey: (raw) => auth.verifyApiKey(raw),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => auth.tenantProjects(t, p),
      }),
      reads: createTraceReads(db.pool, { exportBatchRows: 1_000, maxAnalysedEvents: 20 }),
    },
  });
});
afterAll(async () => {
  await app?.close();
  await runner?.stop();
  await store?.close();
  await db?.close();
});

const base = () => `/api/projects/${projectId}/sessions`;
const get = (url: string, headers: Record<string, string> = { authorization: `Bearer ${key}` }) =>
  app.inject({ method: 'GET', url, headers: { 'x-request-id': 'req-1', ...headers } });
const eventIdOf = (spanId: string) =>
  example.events.find(
    (e) => (e.data as { spanId?: string }).spanId === spanId && e.type === 'TraceEventRecorded',
  )!.eventId;

const call1 = {
  callId: 'call-1',
  model: 'gpt-4o-mini-2024-07-18',
  provider: 'openai',
  status: 'success',
  inputTokens: 1843,
  cachedTokens: 1024,
  completionTokens: 61,
  reasoningTokens: 0,
  outputTokens: 61,
  totalTokens: 1904,
  latencyMs: 600,
  timeToFirstTokenMs: 342,
  streamingUsed: true,
  cost: 0.00031305,
};

describe('GET …/sessions/{sessionId}/traces', () => {
  it('200: every event of the session in order, every field', async () => {
    const res = await get(`${base()}/${sessionId}/traces`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(Object.keys(body)).toEqual(['success', 'sessionId', 'traces', 'pagination', 'hasMore']);
    expect(body.success).toBe(true);
    expect(body.sessionId).toBe(sessionId);
    expect(body.pagination).toEqual({ total: 13, limit: 50, offset: 0 });
    expect(body.hasMore).toBe(false);
    expect(body.traces.map((t: { spanId: string }) => t.spanId)).toEqual([
      'turn-1',
      'llm-1',
      'tool-1',
      'result-1',
      'guard-1',
      'decision-1',
      'handoff-1',
      'state-1',
      'turn-2',
      'llm-2',
      'tool-2',
      'guard-2',
      'error-2',
    ]);
    expect(body.traces[2]).toEqual({
      eventId: eventIdOf('tool-1'),
      sessionId,
      traceId: `trace-${sessionId}`,
      spanId: 'tool-1',
      parentSpanId: 'turn-1',
      eventType: 'tool_call',
      name: 'lookup_invoices',
      status: null,
      decisionKind: null,
      llmCallId: null,
      startedAt: '2026-11-21T09:00:00.700Z',
      endedAt: '2026-11-21T09:00:01.000Z',
      durationMs: 300,
      attributes: { parameters: { customerId: 'cus_1, "vip"' } },
      childCount: 1,
      llmCall: null,
    });
    expect(body.traces[1]).toEqual({
      eventId: eventIdOf('llm-1'),
      sessionId,
      traceId: `trace-${sessionId}`,
      spanId: 'llm-1',
      parentSpanId: 'turn-1',
      eventType: 'llm_call',
      name: 'gpt-4o-mini',
      status: 'ok',
      decisionKind: null,
      llmCallId: 'call-1',
      startedAt: '2026-11-21T09:00:00.020Z',
      endedAt: '2026-11-21T09:00:00.620Z',
      durationMs: 600,
      attributes: {},
      childCount: 0,
      llmCall: call1,
    });
    expect(body.traces[0]).toMatchObject({ spanId: 'turn-1', parentSpanId: null, childCount: 6 });
    expect(body.traces[8]).toMatchObject({
      spanId: 'turn-2',
      durationMs: null,
      endedAt: null,
      childCount: 4,
    });
  });

  it('filters by eventType and decisionKind, and pages', async () => {
    const types = (
      await get(`${base()}/${sessionId}/traces?eventType=tool_call,error&eventType=handoff`)
    ).json();
    expect(types.traces.map((t: { spanId: string }) => t.spanId)).toEqual([
      'tool-1',
      'handoff-1',
      'tool-2',
      'error-2',
    ]);
    expect(types.pagination.total).toBe(4);
    const kinds = (await get(`${base()}/${sessionId}/traces?decisionKind=handoff`)).json();
    expect(kinds.traces.map((t: { spanId: string }) => t.spanId)).toEqual(['decision-1']);
    const page = (await get(`${base()}/${sessionId}/traces?limit=5&offset=10`)).json();
    expect(page.traces.map((t: { spanId: string }) => t.spanId)).toEqual(['tool-2', 'guard-2', 'error-2']);
    expect(page.pagination).toEqual({ total: 13, limit: 5, offset: 10 });
    expect(page.hasMore).toBe(false);
    const first = (await get(`${base()}/${sessionId}/traces?limit=5`)).json();
    expect(first.hasMore).toBe(true);
    const beyond = (await get(`${base()}/${sessionId}/traces?offset=100`)).json();
    expect(beyond).toMatchObject({ traces: [], pagination: { total: 13 }, hasMore: false });
  });

  it('include=metrics adds the metrics of GET …/metrics', async () => {
    const withMetrics = (await get(`${base()}/${sessionId}/traces?include=metrics&limit=1`)).json();
    const { sessionId: _s, ...metrics } = (await get(`${base()}/${sessionId}/metrics`)).json().data;
    expect(withMetrics.metrics).toEqual(metrics);
    expect(withMetrics.traces).toHaveLength(1);
  });

  it('a known session without trace events is an empty list; an unknown one 404', async () => {
    const empty = (await get(`${base()}/${emptySessionId}/traces`)).json();
    expect(empty).toEqual({
      success: true,
      sessionId: emptySessionId,
      traces: [],
      pagination: { total: 0, limit: 50, offset: 0 },
      hasMore: false,
    });
    for (const path of ['traces', 'metrics', 'analysis', 'traces/turn-1/children']) {
      const res = await get(`${base()}/sess_unknown/${path}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'SESSION_NOT_FOUND', message: 'Session not found' },
      });
    }
  });

  it('400 for a bad sessionId, eventType, include, limit or offset', async () => {
    const cases: Array<[string, string]> = [
      [`${base()}/${'s'.repeat(257)}/traces`, 'INVALID_SESSION_ID'],
      [`${base()}/${sessionId}/traces?eventType=llm_call,bogus`, 'INVALID_EVENT_TYPE'],
      [`${base()}/${sessionId}/traces?include=events`, 'VALIDATION_ERROR'],
      [`${base()}/${sessionId}/traces?limit=0`, 'VALIDATION_ERROR'],
      [`${base()}/${sessionId}/traces?limit=201`, 'VALIDATION_ERROR'],
      [`${base()}/${sessionId}/traces?offset=-1`, 'VALIDATION_ERROR'],
      [`${base()}/${sessionId}/traces?decisionKind=`, 'VALIDATION_ERROR'],
    ];
    for (const [url, code] of cases) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code } });
    }
  });
});

describe('authentication (spec 001 §5: bearer token)', () => {
  const url = () => `${base()}/${sessionId}/traces`;

  it('takes a platform key as a bearer or in x-api-key, and a user JWT', async () => {
    expect((await get(url(), { 'x-api-key': key })).statusCode).toBe(200);
    const token = jwt({ sub: 'user_1', tenant_id: tenantId, project_ids: [projectId], scope: 'traces.read' });
    expect((await get(url(), { authorization: `Bearer ${token}` })).statusCode).toBe(200);
  });

  it('401 without or with a bad credential; 403 without trace:read; 404 for another project', async () => {
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer plat_nope_0123456789' },
      { authorization: 'Basic x' },
    ];
    for (const headers of refused) {
      const res = await get(url(), headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Missing or invalid credentials', requestId: 'req-1' });
    }
    const forbidden = await get(url(), { authorization: `Bearer ${analyticsKey}` });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({
      success: false,
      error: { code: 'PERMISSION_REQUIRED', message: 'This API key lacks the permission trace:read' },
      required: 'trace:read',
    });
    const scopeless = jwt({
      sub: 'u',
      tenant_id: tenantId,
      project_ids: [projectId],
      scope: 'analytics.read',
    });
    expect((await get(url(), { authorization: `Bearer ${scopeless}` })).statusCode).toBe(403);
    for (const headers of [
      { authorization: `Bearer ${otherKey}` },
      {
        authorization: `Bearer ${jwt({ sub: 'u', tenant_id: tenantId, project_ids: [otherProjectId], scope: 'traces.read' })}`,
      },
    ]) {
      const res = await get(url(), headers);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'PROJECT_NOT_FOUND' } });
    }
    // Every route is guarded.
    for (const path of [
      `${sessionId}/metrics`,
      `${sessionId}/analysis`,
      `${sessionId}/traces/turn-1/children`,
      'export',
      'generations',
    ]) {
      expect((await get(`${base()}/${path}`, {})).statusCode).toBe(401);
    }
  });
});

describe('GET …/traces/{spanId}/children', () => {
  it('200: the span and its direct children', async () => {
    const res = await get(`${base()}/${sessionId}/traces/turn-1/children`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['success', 'sessionId', 'span', 'children', 'pagination', 'hasMore']);
    expect(body.span).toMatchObject({ spanId: 'turn-1', eventType: 'response', childCount: 6 });
    expect(body.children.map((c: { spanId: string }) => c.spanId)).toEqual([
      'llm-1',
      'tool-1',
      'guard-1',
      'decision-1',
      'handoff-1',
      'state-1',
    ]);
    expect(body.children[0].llmCall).toEqual(call1);
    expect(body.pagination).toEqual({ total: 6, limit: 50, offset: 0 });
    const nested = (await get(`${base()}/${sessionId}/traces/tool-1/children?limit=1`)).json();
    expect(nested.children.map((c: { spanId: string }) => c.spanId)).toEqual(['result-1']);
    expect(nested).toMatchObject({ pagination: { total: 1, limit: 1, offset: 0 }, hasMore: false });
    const leaf = (await get(`${base()}/${sessionId}/traces/result-1/children`)).json();
    expect(leaf).toMatchObject({ children: [], pagination: { total: 0 } });
  });

  it('404 SPAN_NOT_FOUND for a span not in the session', async () => {
    const res = await get(`${base()}/${sessionId}/traces/nope/children`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'SPAN_NOT_FOUND', message: 'Span not found' },
    });
  });
});

describe('GET …/metrics and …/analysis', () => {
  it('200: the metrics of the session', async () => {
    const res = await get(`${base()}/${sessionId}/metrics`);
    expect(res.statusCode).toBe(200);
    const { success, data } = res.json();
    expect(success).toBe(true);
    expect(data).toMatchObject({
      sessionId,
      eventCount: 13,
      totalLatencyMs: 5900,
      wallClockMs: 9390,
      turnCount: 2,
      llmCallCount: 2,
      tokenUsage: {
        inputTokens: 10843,
        cachedTokens: 1024,
        completionTokens: 61,
        reasoningTokens: 0,
        outputTokens: 61,
        totalTokens: 10904,
      },
      toolCallCount: 2,
      toolSuccessCount: 1,
      toolSuccessRate: 0.5,
      guardrailEvaluationCount: 2,
      guardrailBlockCount: 1,
      guardrailBlockRate: 0.5,
      errorCount: 4,
    });
    expect(data.turns.map((t: { spanId: string; latencyMs: number }) => [t.spanId, t.latencyMs])).toEqual([
      ['turn-1', 1500],
      ['turn-2', 4400],
    ]);
    expect(data.llmCalls[0]).toEqual({ ...call1, spanId: 'llm-1', startedAt: '2026-11-21T09:00:00.020Z' });
    expect(data.totalCost).toBeCloseTo(0.00151305, 10);
  });

  it('200: the analysis by the documented rules', async () => {
    const res = await get(`${base()}/${sessionId}/analysis`);
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(Object.keys(data)).toEqual([
      'sessionId',
      'slowSpans',
      'errorPatterns',
      'decisionAnomalies',
      'suggestions',
      'rules',
    ]);
    expect(data.slowSpans).toEqual([
      {
        eventId: eventIdOf('llm-2'),
        spanId: 'llm-2',
        eventType: 'llm_call',
        name: 'gpt-4o-mini',
        durationMs: 4000,
        rule: 'absolute',
        thresholdMs: 2000,
      },
    ]);
    expect(data.errorPatterns[2]).toEqual({
      eventType: 'tool_call',
      name: 'issue_refund',
      code: 'REFUND_LIMIT',
      count: 1,
      firstAt: '2026-11-21T09:00:09.100Z',
      lastAt: '2026-11-21T09:00:09.100Z',
      spanIds: ['tool-2'],
    });
    expect(data.decisionAnomalies).toEqual([]);
    expect(data.suggestions.map((s: { code: string }) => s.code)).toEqual([
      'investigate_slow_spans',
      'reduce_prompt_size',
      'enable_streaming',
      'review_errors',
    ]);
    expect(data.rules.slowSpanMs).toBe(2000);
  });

  it('422 TRACE_TOO_LARGE past the in-memory cap (20 events in this app), never 413', async () => {
    const big = `sess_${randomUUID()}`;
    const events = Array.from({ length: 21 }, (_, i) =>
      toAppend('TraceEventRecorded', {
        projectId,
        sessionId: big,
        traceId: 't',
        spanId: `s${i}`,
        eventType: 'state_change',
        startedAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
      }),
    );
    await append(`session-${big}`, events);
    await caughtUp();
    for (const path of ['metrics', 'analysis', 'traces?include=metrics']) {
      const res = await get(`${base()}/${big}/${path}`);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'TRACE_TOO_LARGE' } });
    }
    expect((await get(`${base()}/${big}/traces`)).json().pagination.total).toBe(21);
  });
});

describe('GET …/sessions/generations', () => {
  it('200: calls across sessions, newest first, every field, filters and pages', async () => {
    const other = `sess_${randomUUID()}`;
    await append(`session-${other}`, [
      toAppend('LlmCallRecorded', {
        ...eventExamples.LlmCallRecorded,
        projectId,
        sessionId: other,
        callId: 'call-9',
        model: 'claude-3-5-sonnet-20241022',
        provider: 'anthropic',
        startedAt: '2026-11-22T10:00:00.000Z',
        payload: { prompt: [{ role: 'user', content: 'hi' }], response: { content: 'hello' } },
      }),
    ]);
    await caughtUp();
    const res = await get(`${base()}/generations`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['success', 'generations', 'pagination', 'hasMore']);
    expect(body.generations.map((g: { id: string }) => g.id).slice(0, 3)).toEqual([
      `${other}:call-9`,
      `${sessionId}:call-2`,
      `${sessionId}:call-1`,
    ]);
    const example = eventExamples.LlmCallRecorded;
    expect(body.generations[0]).toEqual({
      id: `${other}:call-9`,
      callId: 'call-9',
      sessionId: other,
      traceId: example.traceId,
      spanId: example.spanId,
      eventId: expect.any(String),
      agentName: example.agentName,
      provider: 'anthropic',
      model: 'claude-3-5-sonnet-20241022',
      status: 'success',
      statusCode: 200,
      environment: 'production',
      channel: 'voice_pipeline',
      channelType: 'pstn',
      ...example.usage,
      latencyMs: 1289,
      timeToFirstTokenMs: 342,
      streamingUsed: true,
      cost: 0.00031305,
      priceCardVersion: '2024-10-01',
      source: 'runtime',
      sourceSubtype: 'response_generation',
      startedAt: '2026-11-22T10:00:00.000Z',
      promptMetadata: {
        stored: true,
        messageCount: 1,
        toolCount: null,
        promptBytes: JSON.stringify([{ role: 'user', content: 'hi' }]).length,
        responseBytes: JSON.stringify({ content: 'hello' }).length,
      },
    });
    const filtered = (await get(`${base()}/generations?model=gpt-4o-mini-2024-07-18&status=failed`)).json();
    expect(filtered.generations.map((g: { id: string }) => g.id)).toEqual([`${sessionId}:call-2`]);
    expect(filtered.generations[0].promptMetadata).toEqual({
      stored: false,
      messageCount: null,
      toolCount: null,
      promptBytes: null,
      responseBytes: null,
    });
    const bySession = (await get(`${base()}/generations?sessionId=${sessionId}&limit=1&offset=1`)).json();
    expect(bySession.generations.map((g: { id: string }) => g.id)).toEqual([`${sessionId}:call-1`]);
    expect(bySession).toMatchObject({ pagination: { total: 2, limit: 1, offset: 1 }, hasMore: false });
    const windowed = (
      await get(`${base()}/generations?fromDate=2026-11-22&toDate=2026-11-23T00:00:00Z&provider=anthropic`)
    ).json();
    expect(windowed.generations.map((g: { id: string }) => g.id)).toEqual([`${other}:call-9`]);
    const none = (await get(`${base()}/generations?agentName=nobody`)).json();
    expect(none).toEqual({
      success: true,
      generations: [],
      pagination: { total: 0, limit: 50, offset: 0 },
      hasMore: false,
    });
  });

  it('400 for a bad status, date or limit', async () => {
    for (const q of [
      'status=ok',
      'fromDate=yesterday',
      'fromDate=2026-02-01&toDate=2026-01-01',
      'limit=500',
    ]) {
      const res = await get(`${base()}/generations?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET …/sessions/export?format=csv', () => {
  it('200: RFC 4180 CSV of the project, header first, filters', async () => {
    const res = await get(`${base()}/export?format=csv&sessionId=${sessionId}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="traces-${projectId}.csv"`);
    expect(res.headers['cache-control']).toBe('no-store');
    const [header, ...records] = parseCsv(res.body);
    expect(header).toEqual([...TRACE_CSV_COLUMNS]);
    expect(records).toHaveLength(13);
    const tool = records.find((r) => r[3] === 'tool-1');
    expect(tool).toEqual([
      sessionId,
      eventIdOf('tool-1'),
      `trace-${sessionId}`,
      'tool-1',
      'turn-1',
      'tool_call',
      'lookup_invoices',
      '',
      '',
      '',
      '2026-11-21T09:00:00.700Z',
      '2026-11-21T09:00:01.000Z',
      '300',
      JSON.stringify({ parameters: { customerId: 'cus_1, "vip"' } }),
    ]);
    expect(res.body).toContain('"{""parameters"":{""customerId"":""cus_1, \\""vip\\""""}}"');
    const errors = parseCsv((await get(`${base()}/export?sessionId=${sessionId}&eventType=error`)).body);
    expect(errors.slice(1).map((r) => r[3])).toEqual(['error-2']);
    const windowed = parseCsv(
      (
        await get(
          `${base()}/export?sessionId=${sessionId}&fromDate=2026-11-21T09:00:05Z&toDate=2026-11-21T09:00:09.300Z`,
        )
      ).body,
    );
    expect(windowed.slice(1).map((r) => r[3])).toEqual(['turn-2', 'llm-2', 'tool-2']);
  });

  it('400 for another format', async () => {
    const res = await get(`${base()}/export?format=json`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'INVALID_FORMAT', message: 'format must be csv' },
    });
  });
});

describe('OpenAPI', () => {
  it('documents the six trace routes in a valid OpenAPI 3.1 document', async () => {
    const res = await app.inject('/openapi.json');
    const document = res.json();
    const paths = [
      '/api/projects/{projectId}/sessions/{sessionId}/traces',
      '/api/projects/{projectId}/sessions/{sessionId}/traces/{spanId}/children',
      '/api/projects/{projectId}/sessions/{sessionId}/metrics',
      '/api/projects/{projectId}/sessions/{sessionId}/analysis',
      '/api/projects/{projectId}/sessions/export',
      '/api/projects/{projectId}/sessions/generations',
    ];
    const routes = paths.map((url) => ({ method: 'GET', url: url.replaceAll(/\{(\w+)\}/g, ':$1') }));
    expect(openApiProblems(document, routes)).toEqual([]);
    for (const path of paths) {
      expect(document.paths[path]?.get?.tags).toEqual(['traces']);
      expect(Object.keys(document.paths[path].get.responses)).toEqual(
        expect.arrayContaining(['200', '401', '404']),
      );
    }
    // The CSV export is documented as what it sends: text/csv, not application/json.
    expect(Object.keys(document.paths[paths[4]!].get.responses['200'].content)).toEqual(['text/csv']);
    // TRACE_TOO_LARGE is 422 (413 is for request bodies).
    expect(Object.keys(document.paths[paths[2]!].get.responses)).toContain('422');
    expect(Object.keys(document.paths[paths[2]!].get.responses)).not.toContain('413');
    const event = document.paths[paths[0]!].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(event.properties.traces.items.properties)).toEqual([
      'eventId',
      'sessionId',
      'traceId',
      'spanId',
      'parentSpanId',
      'eventType',
      'name',
      'status',
      'decisionKind',
      'llmCallId',
      'startedAt',
      'endedAt',
      'durationMs',
      'attributes',
      'childCount',
      'llmCall',
    ]);
  });
});
