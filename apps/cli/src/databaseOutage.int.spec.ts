import { randomUUID } from 'node:crypto';
import { createApiServer } from '@parley/api/server';
import { createAuthStore } from '@parley/auth';
import { loadConfig, silentLogger } from '@parley/platform';
import { type PrivatePostgres, startPrivatePostgres } from '@parley/platform/testing/privatePostgres';
import { ensureProjections } from '@parley/projection-runner';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSystem, type System } from './system.js';

// The API as `parley api` composes it, on a private PostgreSQL the test stops: never the machine's.
let pg: PrivatePostgres;
let system: System;
let api: { app: FastifyInstance; close(): Promise<void> };
let projectId: string;
let keys: Record<'analytics' | 'ingest' | 'recordings' | 'agents', string>;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  const config = loadConfig({ DATABASE_URL: pg.url, LOG_LEVEL: 'silent' });
  system = await openSystem(config, silentLogger(), { database: 'external', migrate: true });
  // The read models' tables, as the worker makes them at its start.
  await ensureProjections(system.pool, system.projections);
  api = await createApiServer(system);
  const auth = createAuthStore(system.pool);
  const tenant = await auth.createTenant({ name: 'Outage', features: { callRecording: true } });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'outage' });
  projectId = project.id;
  const key = async (scope: string) => (await auth.createApiKey({ projectId, scopes: [scope] })).key;
  keys = {
    analytics: await key('analytics.read'),
    ingest: await key('ingest.write'),
    recordings: await key('recordings.read'),
    agents: await key('agents.read'),
  };
}, 120_000);
afterAll(async () => {
  await api?.close();
  await system?.close();
  await pg?.destroy();
});

const range = 'fromDate=2026-01-01&toDate=2027-01-01';
const requests = () => [
  {
    name: 'ingest',
    method: 'POST' as const,
    url: '/api/v1/ingest',
    headers: { 'x-api-key': keys.ingest },
    payload: {
      items: [
        {
          id: `s-${randomUUID()}:start`,
          type: 'session.started',
          data: {
            sessionId: `s-${randomUUID()}`,
            agentName: 'a',
            channel: 'api',
            environment: 'production',
            traceDimensions: {},
            startedAt: new Date().toISOString(),
          },
        },
      ],
    },
  },
  {
    name: 'sessions',
    method: 'GET' as const,
    url: `/api/public/analytics/projects/${projectId}/sessions?${range}`,
    headers: { 'x-api-key': keys.analytics },
  },
  {
    name: 'ledger',
    method: 'GET' as const,
    url: `/api/public/analytics/projects/${projectId}/llm-ledger?${range}`,
    headers: { 'x-api-key': keys.analytics },
  },
  {
    name: 'recordings',
    method: 'GET' as const,
    url: `/api/public/recordings/projects/${projectId}/sessions/s-1/recordings`,
    headers: { 'x-api-key': keys.recordings },
  },
  {
    name: 'agents',
    method: 'GET' as const,
    url: `/api/v1/projects/${projectId}/agents`,
    headers: { 'x-api-key': keys.agents },
  },
];

const send = (r: ReturnType<typeof requests>[number]) =>
  api.app.inject({
    method: r.method,
    url: r.url,
    headers: r.headers,
    ...('payload' in r ? { payload: r.payload } : {}),
  });

describe('the API while PostgreSQL is down', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After in each route family envelope, then recovers', async () => {
    for (const r of requests()) expect((await send(r)).statusCode, r.name).toBeLessThan(500);
    expect((await api.app.inject('/readyz')).statusCode).toBe(200);

    await pg.stop();
    try {
      for (const r of requests()) {
        const res = await send(r);
        expect({ name: r.name, status: res.statusCode, retryAfter: res.headers['retry-after'] }).toEqual({
          name: r.name,
          status: 503,
          retryAfter: '2',
        });
        const body = res.json();
        expect(body).toMatchObject({
          success: false,
          error: { code: 'SERVICE_UNAVAILABLE', message: 'Service unavailable' },
        });
        // The analytics routes keep their own envelope (spec 000 §7).
        if (r.name === 'sessions' || r.name === 'ledger')
          expect(body).toMatchObject({ message: 'Service unavailable', required: '' });
      }
      expect((await api.app.inject('/readyz')).statusCode).toBe(503);
      expect((await api.app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await pg.start();
    }

    const back = Date.now();
    for (const r of requests()) {
      while ((await send(r)).statusCode >= 500) {
        if (Date.now() - back > 5_000) throw new Error(`${r.name} not back within 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }, 60_000);
});
