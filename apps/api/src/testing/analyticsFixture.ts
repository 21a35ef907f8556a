import { storedCallerNumberKey } from '@parley/analytics';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  START,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { ingest } from '@parley/ingest';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { ledgerStats, listLedger, llmLedgerProjection } from '@parley/projection-llm-ledger';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionFreshness,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { listSessions, sessionSummariesProjection } from '@parley/projection-session-summaries';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../app.js';
import { createPageCache } from '../routes/pageCache.js';

/**
 * A real database, the real ingest route, the projection runner with both read models, and an
 * app with the analytics routes wired as apps/api/src/server.ts wires them.
 */
export interface AnalyticsFixture {
  db: TestDatabase;
  store: PostgresEventStore;
  auth: AuthStore;
  app: FastifyInstance;
  projectId: string;
  /** analytics.read, ingest.write, and an analytics.read key of another project of the same tenant. */
  keys: { analytics: string; ingest: string; otherProject: string };
  otherProjectId: string;
  makeApp(defaultLimit: number): Promise<FastifyInstance>;
  /** POSTs the items to /api/v1/ingest (all must be accepted) and waits until both projections have them. */
  ingestAndProject(items: readonly object[], key?: string): Promise<void>;
  close(): Promise<void>;
}

const PROJECTIONS = [sessionSummariesProjection, llmLedgerProjection];

export async function createAnalyticsFixture(): Promise<AnalyticsFixture> {
  const db = await createTestDatabase([eventStoreMigrations, authMigrations, projectionRunnerMigrations], {
    poolMax: 20,
  });
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'support' });
  const other = await auth.createProject({ tenantId: tenant.id, slug: 'sales' });
  const keys = {
    analytics: (await auth.createApiKey({ projectId: project.id, scopes: ['analytics.read'] })).key,
    ingest: (await auth.createApiKey({ projectId: project.id, scopes: ['ingest.write'] })).key,
    otherProject: (await auth.createApiKey({ projectId: other.id, scopes: ['analytics.read'] })).key,
  };
  const runner: ProjectionRunner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: PROJECTIONS,
    batchSize: 500,
    pollIntervalMs: 20,
    idleCheckMs: 100,
    retryBackoff: { initialMs: 20, maxMs: 200 },
  });
  await runner.start();

  const makeApp = (defaultLimit: number) =>
    buildApp({
      logger: silentLogger(),
      readiness: { database: async () => true, pendingMigrations: async () => [] },
      rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit },
      ingest: {
        verify: (key) => auth.verifyApiKey(key),
        ingest: (scope, items) =>
          ingest({ store, pool: db.pool, normaliseCallerNumber: storedCallerNumberKey }, scope, items),
      },
      analytics: {
        verify: (key) => auth.verifyApiKey(key),
        listSessions: (filter) => listSessions(db.pool, filter),
        listLedger: (filter) => listLedger(db.pool, filter),
        ledgerStats: (filter) => ledgerStats(db.pool, filter),
        callerNumberLookupEnabled: async (projectId) =>
          (await auth.getProject(projectId))?.settings.reporting?.identityFields !== false,
        freshness: (projection) => projectionFreshness(db.pool, projection),
        pageCache: createPageCache(),
      },
    });
  const app = await makeApp(10_000);

  let last: Position = START;
  async function caughtUp(): Promise<void> {
    // Generous: other suites and benchmarks may load the same PostgreSQL.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const head = await store.head();
      // The runner reads the settled log only: first wait until our appends are readable.
      if (head && comparePositions(head.position, last) >= 0) {
        const status = await projectionStatus(db.pool, store, PROJECTIONS);
        if (status.every((s) => s.generations.find((g) => g.status === 'live')?.eventsBehind === 0)) return;
        if (status.some((s) => s.state === 'failed'))
          throw new Error(`projection failed: ${JSON.stringify(status)}`);
      }
      if (Date.now() > deadline) throw new Error('projections did not catch up');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  return {
    db,
    store,
    auth,
    app,
    projectId: project.id,
    otherProjectId: other.id,
    keys,
    makeApp,
    async ingestAndProject(items, key = keys.ingest) {
      for (let i = 0; i < items.length; i += 1_000) {
        const res = await app.inject({
          method: 'POST',
          url: '/api/v1/ingest',
          headers: { 'x-api-key': key },
          payload: { items: items.slice(i, i + 1_000) },
        });
        expect(res.statusCode, res.body.slice(0, 2_000)).toBe(200);
        const streams = new Set<string>(res.json().data.results.map((r: { stream: string }) => r.stream));
        for (const stream of streams) {
          for await (const event of store.readStream(stream)) {
            if (comparePositions(event.position, last) > 0) last = event.position;
          }
        }
      }
      await caughtUp();
    },
    async close() {
      await app.close();
      await runner.stop();
      await store.close();
      await db.close();
    },
  };
}

/** Ingest items of one complete session (every kind of fact), starting at `t0`. Expected values in the specs. */
export function sessionItems(
  sessionId: string,
  t0: string,
  overrides: { start?: Record<string, unknown>; end?: Record<string, unknown> | null } = {},
): object[] {
  const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
  const item = (suffix: string, type: string, data: Record<string, unknown>) => ({
    id: `${sessionId}-${suffix}`,
    type,
    data: { sessionId, ...data },
  });
  const trace = (n: number, eventType: string, offsetMs: number, durationMs?: number) =>
    item(`trace-${n}`, 'trace.event', {
      traceId: 'trace-1',
      spanId: `span-${n}`,
      eventType,
      startedAt: at(offsetMs),
      ...(durationMs === undefined ? {} : { durationMs }),
    });
  const items = [
    item('start', 'session.started', {
      agentName: 'support',
      channel: 'web_chat',
      environment: 'dev',
      channelUserId: 'user-1',
      callerNumber: '+44 20 7946 0958',
      traceDimensions: { plan: 'pro', region: 'eu' },
      isTest: false,
      startedAt: at(0),
      ...overrides.start,
    }),
    item('user-1', 'message.user', { messageId: 'm1', text: 'Hello', receivedAt: at(5_000) }),
    item('agent-1', 'message.agent', {
      messageId: 'm2',
      agentName: 'support',
      text: 'Hi',
      repliedAt: at(10_000),
    }),
    item('user-2', 'message.user', { messageId: 'm3', text: 'Thanks', receivedAt: at(60_000) }),
    trace(1, 'llm_call', 6_000, 1_000),
    trace(2, 'decision', 8_000),
    trace(3, 'tool_call', 9_000, 500),
    trace(4, 'error', 9_500),
    trace(5, 'tool_result', 9_600),
    item('call-1', 'llm.call', llmCall(sessionId, 'call-1', at(6_000))),
    item('call-2', 'llm.call', {
      callId: 'call-2',
      agentName: 'support',
      environment: 'dev',
      channel: 'web_chat',
      status: 'failed',
      statusCode: 500,
      streamingUsed: false,
      cost: 0.0005,
      source: 'runtime',
      sourceSubtype: 'tool_use_iteration',
      startedAt: at(90_000),
      usage: usage(50, 0, 5, 0),
      latencyMs: 1_500,
      timeToFirstTokenMs: 1_500,
    }),
  ];
  if (overrides.end !== null) {
    items.push(
      item('end', 'session.ended', {
        status: 'completed',
        containmentType: 'contained_resolved',
        endedAt: at(300_000),
        ...overrides.end,
      }),
    );
  }
  return items;
}

export function usage(
  inputTokens: number,
  cachedTokens: number,
  completionTokens: number,
  reasoningTokens: number,
) {
  const outputTokens = completionTokens + reasoningTokens;
  return {
    inputTokens,
    cachedTokens,
    completionTokens,
    reasoningTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
  };
}

/** The first call of sessionItems, with every optional field set and a payload. */
export function llmCall(
  sessionId: string,
  callId: string,
  startedAt: string,
  extra: Record<string, unknown> = {},
) {
  return {
    callId,
    sessionId,
    provider: 'openai',
    model: 'gpt-4o',
    agentName: 'support',
    environment: 'dev',
    channel: 'web_chat',
    channelType: 'widget',
    status: 'success',
    statusCode: 200,
    streamingUsed: true,
    cost: 0.0123,
    source: 'agent_session',
    sourceSubtype: 'response_gen',
    sourceId: 'agent-v3',
    traceId: 'trace-1',
    startedAt,
    usage: usage(100, 20, 30, 10),
    latencyMs: 3_000,
    timeToFirstTokenMs: 800,
    payload: { prompt: [{ role: 'user', content: 'Hello' }], response: { content: 'Hi' } },
    ...extra,
  };
}
