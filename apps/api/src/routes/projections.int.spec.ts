import { createHmac, randomUUID } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { createChannelJobQueue } from '@parley/channels';
import {
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  formatPosition,
  type PostgresEventStore,
} from '@parley/eventstore';
import { createInProcessRateLimiter, createJwtVerifier } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionsAdmin,
  defineProjection,
  ensureProjections,
  PROJECTION_REBUILD_QUEUE,
  projectionRunnerMigrations,
} from '@parley/projection-runner';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

/** Small projections of their own: one per test that requests a rebuild (no worker runs here). */
const countsOf = (name: string) =>
  defineProjection({
    name,
    version: 1,
    tables: {
      [`${name.replaceAll('-', '_')}_rows`]: {
        columns: { event_type: 'text', count: 'bigint' },
        primaryKey: ['event_type'],
      },
    },
    handlers: {
      [`${name.replaceAll('-', '_')}_rows`]: {
        keys: (event) => [{ event_type: event.type }],
        evolve: (row, _event, key) => (row ? { ...row, count: Number(row.count) + 1 } : { ...key, count: 1 }),
      },
    },
  });
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'jwt-one', 'race', 'audited'] as const;
const projections = NAMES.map(countsOf);
const unregistered = countsOf('never-run');

const JWT_SECRET = 'test-secret-of-at-least-32-bytes-long!!';
let db: TestDatabase;
let bare: TestDatabase;
let store: PostgresEventStore;
let bareStore: PostgresEventStore;
let auth: AuthStore;
let boss: PgBoss;
let bareBoss: PgBoss | undefined;
let app: FastifyInstance;
let bareApp: FastifyInstance;
let tenantId: string;
let projectId: string;
let adminKey: string;
let adminKeyId: string;
let readKey: string;
let tracesKey: string;
let bareKey: string;

/** An HS256 JWT, signed by hand (node:crypto) as the identity provider would. */
function jwt(claims: Record<string, unknown>): string {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

const event = (type: string): EventToAppend => ({ eventId: randomUUID(), type, data: {}, metadata: {} });

async function appFor(
  database: TestDatabase,
  logStore: PostgresEventStore,
  authStore: AuthStore,
  sender: PgBoss,
): Promise<FastifyInstance> {
  return buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    projections: {
      verifyApiKey: (raw) => authStore.verifyApiKey(raw),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        expandScopes,
        tenantProjects: (t, p) => authStore.tenantProjects(t, p),
      }),
      admin: createProjectionsAdmin({
        pool: database.pool,
        store: logStore,
        projections: [...projections, unregistered],
        boss: sender,
      }),
    },
  });
}

beforeAll(async () => {
  const sets = [eventStoreMigrations, projectionRunnerMigrations, authMigrations];
  [db, bare] = await Promise.all([createTestDatabase(sets), createTestDatabase(sets)]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
  bareStore = createPostgresEventStore({ pool: bare.pool, connectionString: bare.url });
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Ops' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'ops', name: 'Ops' })).id;
  const admin = await auth.createApiKey({ projectId, name: 'admin', scopes: ['projections.admin'] });
  adminKey = admin.key;
  adminKeyId = admin.record.id;
  readKey = (await auth.createApiKey({ projectId, name: 'read', scopes: ['projections.read'] })).key;
  tracesKey = (await auth.createApiKey({ projectId, name: 'traces', scopes: ['traces.read'] })).key;

  await store.append('session-a', [
    event('MessageReceived'),
    event('AgentReplied'),
    event('MessageReceived'),
  ]);
  await ensureProjections(db.pool, projections);
  // The worker's part: pg-boss's schema and the queue (createProjectionRebuildWork does this at start).
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await boss.createQueue(PROJECTION_REBUILD_QUEUE);
  app = await appFor(db, store, auth, boss);

  // A deployment whose worker never ran: no pg-boss schema at all.
  const bareAuth = createAuthStore(bare.pool);
  const bareTenant = (await bareAuth.createTenant({ name: 'Bare' })).id;
  const bareProject = (await bareAuth.createProject({ tenantId: bareTenant, slug: 'bare' })).id;
  bareKey = (
    await bareAuth.createApiKey({ projectId: bareProject, name: 'a', scopes: ['projections.admin'] })
  ).key;
  await ensureProjections(bare.pool, projections);
  bareApp = await appFor(bare, bareStore, bareAuth, createChannelJobQueue(bare.pool));
});

afterAll(async () => {
  await app?.close();
  await bareApp?.close();
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await bareBoss?.stop({ graceful: false, timeout: 5_000 });
  await store?.close();
  await bareStore?.close();
  await db?.close();
  await bare?.close();
});

const headers = (key: string | undefined) => (key === undefined ? {} : { 'x-api-key': key });
const list = (key?: string, target = app) =>
  target.inject({ method: 'GET', url: '/api/v1/projections', headers: headers(key) });
const request = (name: string, key?: string, target = app) =>
  target.inject({ method: 'POST', url: `/api/v1/projections/${name}/rebuilds`, headers: headers(key) });
const getRebuild = (name: string, id: string, key?: string) =>
  app.inject({ method: 'GET', url: `/api/v1/projections/${name}/rebuilds/${id}`, headers: headers(key) });

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('GET /api/v1/projections', () => {
  it('lists every projection with its generations, the head of the log and its latest rebuild', async () => {
    // The log shows an append once no older transaction of the cluster is still open (docs/log.md).
    const deadline = Date.now() + 10_000;
    while ((await store.head()) === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const res = await list(readKey);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    const head = await store.head();
    expect(body.success).toBe(true);
    expect(body.head).toEqual({
      position: formatPosition(head!.position),
      recordedAt: head!.recordedAt.toISOString(),
    });
    expect(body.head.position).toMatch(/^\d+\/\d+$/);
    expect(body.projections.map((p: { name: string }) => p.name)).toEqual([...NAMES, 'never-run']);
    const alpha = body.projections[0];
    expect(alpha).toEqual({
      name: 'alpha',
      state: 'ok',
      codeVersion: 1,
      liveGeneration: 1,
      liveVersion: 1,
      versionMismatch: false,
      generations: [
        {
          generation: 1,
          version: 1,
          status: 'live',
          failure: null,
          // No runner here: nothing applied yet, the three events are behind.
          checkpoint: null,
          eventsProcessed: 0,
          eventsBehind: 3,
          eventsBehindCapped: false,
          secondsBehind: expect.any(Number),
          lastEventRecordedAt: null,
          updatedAt: expect.stringMatching(ISO),
        },
      ],
      rebuild: null,
    });
    expect(body.projections.at(-1)).toEqual({
      name: 'never-run',
      state: 'unregistered',
      codeVersion: 1,
      liveGeneration: null,
      liveVersion: null,
      versionMismatch: false,
      generations: [],
      rebuild: null,
    });
  });

  it('shows the latest requested rebuild of a projection', async () => {
    const requested = (await request('delta', adminKey)).json().rebuild;
    const delta = (await list(adminKey)).json().projections.find((p: { name: string }) => p.name === 'delta');
    expect(delta.rebuild).toEqual(requested);
  });

  it('401 without a credential, 403 PERMISSION_REQUIRED without projection:read', async () => {
    const missing = await list(undefined);
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error).toBeDefined();
    const wrong = await list('plat_not-a-real-key');
    expect(wrong.statusCode).toBe(401);
    const denied = await list(tracesKey);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      success: false,
      error: { code: 'PERMISSION_REQUIRED' },
      required: 'projection:read',
    });
  });
});

describe('POST /api/v1/projections/{name}/rebuilds', () => {
  it('202 with the queued rebuild, and its job on the projection-rebuild queue', async () => {
    const before = Date.now();
    const res = await request('alpha', adminKey);
    expect(res.statusCode).toBe(202);
    expect(res.headers['cache-control']).toBe('no-store');
    const { success, rebuild } = res.json();
    expect(success).toBe(true);
    expect(rebuild).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      projection: 'alpha',
      state: 'queued',
      requestedAt: expect.stringMatching(ISO),
      startedAt: null,
      finishedAt: null,
      generation: null,
      eventsProcessed: 0,
      eventsTotal: null,
      eventsPerSecond: null,
      error: null,
      requestedBy: { kind: 'api_key', id: adminKeyId },
    });
    expect(Date.parse(rebuild.requestedAt)).toBeGreaterThanOrEqual(before - 5_000);
    const job = await boss.getJobById(PROJECTION_REBUILD_QUEUE, rebuild.id);
    expect(job?.data).toEqual({ rebuildId: rebuild.id, projection: 'alpha' });
  });

  it('records who asked with a user JWT, and an audit event in the caller project', async () => {
    const token = jwt({
      sub: 'user-42',
      tenant_id: tenantId,
      project_ids: [projectId],
      scope: 'projections.admin',
    });
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/projections/jwt-one/rebuilds',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().rebuild.requestedBy).toEqual({ kind: 'user', id: 'user-42' });

    const byKey = (await request('audited', adminKey)).json().rebuild;
    const audit: { type: string; data: Record<string, unknown> }[] = [];
    for await (const e of store.readStream(`audit-${projectId}`)) audit.push(e);
    expect(audit.map((e) => e.data)).toEqual(
      expect.arrayContaining([
        {
          projectId,
          tenantId,
          action: 'projection:rebuild_requested',
          principal: { kind: 'user', id: 'user-42' },
          resource: { type: 'projection', id: 'jwt-one' },
          content: { rebuildId: res.json().rebuild.id },
          at: res.json().rebuild.requestedAt,
        },
        {
          projectId,
          tenantId,
          action: 'projection:rebuild_requested',
          principal: { kind: 'api_key', id: adminKeyId },
          resource: { type: 'projection', id: 'audited' },
          content: { rebuildId: byKey.id },
          at: byKey.requestedAt,
        },
      ]),
    );
    expect(audit.every((e) => e.type === 'AuditRecorded')).toBe(true);
  });

  it('409 REBUILD_IN_PROGRESS with the rebuild id while one is queued', async () => {
    const first = (await request('beta', adminKey)).json().rebuild;
    const again = await request('beta', adminKey);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      success: false,
      error: {
        code: 'REBUILD_IN_PROGRESS',
        message: expect.any(String),
        details: { rebuildId: first.id },
      },
    });
  });

  it('two requests at once: one 202, one 409 naming the other', async () => {
    const answers = await Promise.all([request('race', adminKey), request('race', adminKey)]);
    const codes = answers.map((r) => r.statusCode).sort();
    expect(codes).toEqual([202, 409]);
    const accepted = answers.find((r) => r.statusCode === 202)!.json().rebuild;
    const refused = answers.find((r) => r.statusCode === 409)!.json();
    expect(refused.error.details).toEqual({ rebuildId: accepted.id });
    const { rows } = await db.pool.query('select id from projection_rebuilds where projection = $1', [
      'race',
    ]);
    expect(rows).toEqual([{ id: accepted.id }]);
  });

  it('404 PROJECTION_NOT_FOUND for a name this build does not have', async () => {
    const res = await request('no-such-projection', adminKey);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'PROJECTION_NOT_FOUND' } });
  });

  it('401 without a credential, 403 PERMISSION_REQUIRED with projection:read only', async () => {
    expect((await request('gamma', undefined)).statusCode).toBe(401);
    const denied = await request('gamma', readKey);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      error: { code: 'PERMISSION_REQUIRED' },
      required: 'projection:rebuild',
    });
  });

  it('503 QUEUE_UNAVAILABLE until a worker created the queue, and nothing is recorded', async () => {
    // No pg-boss schema at all.
    const none = await request('gamma', bareKey, bareApp);
    expect(none.statusCode).toBe(503);
    expect(none.json()).toMatchObject({ success: false, error: { code: 'QUEUE_UNAVAILABLE' } });
    // pg-boss's schema, but not this queue.
    bareBoss = createChannelJobQueue(bare.pool);
    await bareBoss.start();
    const noQueue = await request('gamma', bareKey, bareApp);
    expect(noQueue.statusCode).toBe(503);
    expect(noQueue.json().error.code).toBe('QUEUE_UNAVAILABLE');
    const { rows } = await bare.pool.query('select count(*)::int as n from projection_rebuilds');
    expect(rows[0].n).toBe(0);
    // Once the queue exists, the same request is accepted (the refused ones left no row behind).
    await bareBoss.createQueue(PROJECTION_REBUILD_QUEUE);
    expect((await request('gamma', bareKey, bareApp)).statusCode).toBe(202);
  });
});

describe('GET /api/v1/projections/{name}/rebuilds/{rebuildId}', () => {
  it('answers the rebuild with every field', async () => {
    const requested = (await request('gamma', adminKey)).json().rebuild;
    await db.pool.query(
      `update projection_rebuilds set state = 'running', started_at = now(), generation = 2,
              events_processed = 1200, events_total = 3400, events_per_second = 25000 where id = $1`,
      [requested.id],
    );
    const res = await getRebuild('gamma', requested.id, readKey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      rebuild: {
        ...requested,
        state: 'running',
        startedAt: expect.stringMatching(ISO),
        generation: 2,
        eventsProcessed: 1200,
        eventsTotal: 3400,
        eventsPerSecond: 25000,
      },
    });
  });

  it('404 REBUILD_NOT_FOUND for an unknown id, a malformed one, or another projection’s', async () => {
    const alphaRebuild = (await list(adminKey))
      .json()
      .projections.find((p: { name: string }) => p.name === 'alpha').rebuild;
    for (const [name, id] of [
      ['alpha', randomUUID()],
      ['alpha', 'not-a-uuid'],
      ['beta', alphaRebuild.id],
    ] as const) {
      const res = await getRebuild(name, id, readKey);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'REBUILD_NOT_FOUND' } });
    }
  });

  it('404 PROJECTION_NOT_FOUND, 401 and 403 PERMISSION_REQUIRED', async () => {
    const unknown = await getRebuild('no-such-projection', randomUUID(), readKey);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('PROJECTION_NOT_FOUND');
    expect((await getRebuild('alpha', randomUUID())).statusCode).toBe(401);
    const denied = await getRebuild('alpha', randomUUID(), tracesKey);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({
      error: { code: 'PERMISSION_REQUIRED' },
      required: 'projection:read',
    });
  });
});

describe('OpenAPI', () => {
  it('documents the three routes in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const routes = [
      { method: 'GET', url: '/api/v1/projections' },
      { method: 'POST', url: '/api/v1/projections/:name/rebuilds' },
      { method: 'GET', url: '/api/v1/projections/:name/rebuilds/:rebuildId' },
    ];
    expect(openApiProblems(document, routes)).toEqual([]);
    const post = document.paths['/api/v1/projections/{name}/rebuilds'].post;
    expect(post.operationId).toBe('requestProjectionRebuild');
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(['202', '401', '403', '404', '409', '503']),
    );
    const rebuild = post.responses['202'].content['application/json'].schema.properties.rebuild;
    expect(Object.keys(rebuild.properties)).toEqual([
      'id',
      'projection',
      'state',
      'requestedAt',
      'startedAt',
      'finishedAt',
      'generation',
      'eventsProcessed',
      'eventsTotal',
      'eventsPerSecond',
      'error',
      'requestedBy',
    ]);
  });
});
