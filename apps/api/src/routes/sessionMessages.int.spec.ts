import { createHmac, randomUUID } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { toAppend, upcast } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import {
  comparePositions,
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  formatPosition,
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
  projectionFreshness,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { createSessionMessageReads, sessionMessagesProjection } from '@parley/projection-session-messages';
import { exampleTranscript } from '@parley/projection-session-messages/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';

let db: TestDatabase;
let store: PostgresEventStore;
let runner: ProjectionRunner;
let auth: AuthStore;
let app: FastifyInstance;
let limitedApp: FastifyInstance;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let key: string;
let tracesKey: string;
let otherKey: string;
let lastRecordedAt: Date;
const sessionId = `sess_${randomUUID()}`;
const startedOnlyId = `sess_${randomUUID()}`;
const JWT_SECRET = 'test-secret-of-at-least-32-bytes-long!!';
let last: Position = START;

async function append(stream: string, events: readonly EventToAppend[]): Promise<void> {
  const { position } = await store.append(stream, events);
  if (comparePositions(position, last) > 0) last = position;
}

async function caughtUp(): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const [status] = await projectionStatus(db.pool, store, [sessionMessagesProjection]);
    const live = status?.generations.find((g) => g.generation === status.liveGeneration);
    if (live && comparePositions(live.checkpoint, last) >= 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('session-messages did not catch up');
}

/** An HS256 JWT, signed by hand (node:crypto) as the identity provider would. */
function jwt(claims: Record<string, unknown>): string {
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ exp: Math.floor(Date.now() / 1000) + 600, ...claims })}`;
  return `${body}.${createHmac('sha256', JWT_SECRET).update(body).digest('base64url')}`;
}

const options = () => ({
  verifyApiKey: (raw: string) => auth.verifyApiKey(raw),
  verifyJwt: createJwtVerifier({
    secret: JWT_SECRET,
    expandScopes,
    tenantProjects: (t, p) => auth.tenantProjects(t, p),
  }),
  reads: createSessionMessageReads(db.pool),
  freshness: () => projectionFreshness(db.pool, sessionMessagesProjection.name),
});

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations, authMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [sessionMessagesProjection],
    pollIntervalMs: 20,
  });
  await runner.start();
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support', name: 'Support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales', name: 'Sales' })).id;
  key = (await auth.createApiKey({ projectId, name: 'transcripts', scopes: ['conversations.read'] })).key;
  tracesKey = (
    await auth.createApiKey({ projectId, name: 'traces', scopes: ['traces.read', 'analytics.read'] })
  ).key;
  otherKey = (
    await auth.createApiKey({ projectId: otherProjectId, name: 'o', scopes: ['conversations.read'] })
  ).key;

  const example = exampleTranscript(projectId, sessionId);
  await append(example.stream, example.events);
  await append(`session-${startedOnlyId}`, [
    toAppend('SessionStarted', { ...eventExamples.SessionStarted, projectId, sessionId: startedOnlyId }),
  ]);
  await caughtUp();
  const { rows } = await db.pool.query<{ recorded_at: Date }>(
    'select max(recorded_at) as recorded_at from events',
  );
  lastRecordedAt = rows[0]!.recorded_at;
  const base = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
  };
  app = await buildApp({
    ...base,
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    sessionMessages: options(),
  });
  limitedApp = await buildApp({
    ...base,
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 3 },
    sessionMessages: options(),
  });
});
afterAll(async () => {
  await app?.close();
  await limitedApp?.close();
  await runner?.stop();
  await store?.close();
  await db?.close();
});

const url = (session = sessionId, project = projectId, query = '') =>
  `/api/projects/${project}/sessions/${encodeURIComponent(session)}/messages${query}`;
const get = (path: string, headers: Record<string, string> = { 'x-api-key': key }) =>
  app.inject({ method: 'GET', url: path, headers: { 'x-request-id': 'req-1', ...headers } });
const errorOf = (res: { json(): unknown }) => (res.json() as { error: { code: string } }).error.code;

describe('GET /api/projects/{projectId}/sessions/{sessionId}/messages', () => {
  it('200: every field of every message, in order (at, then log position), paging and freshness', async () => {
    const res = await get(url());
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      success: true,
      sessionId,
      messages: [
        {
          messageId: 'msg_u1',
          role: 'user',
          text: 'I was charged twice.',
          at: '2026-11-21T09:00:01.000Z',
          inReplyTo: null,
          agentName: null,
          actionSet: null,
          actionEvent: { id: 'start', value: 'billing' },
          usedFallback: null,
        },
        {
          messageId: 'msg_a1',
          role: 'agent',
          text: 'Refund the duplicate?',
          at: '2026-11-21T09:00:02.000Z',
          inReplyTo: 'msg_u1',
          agentName: 'billing-assistant',
          actionSet: {
            prompt: 'Refund the duplicate charge?',
            elements: [{ type: 'button', id: 'refund_yes', label: 'Yes' }],
          },
          actionEvent: null,
          usedFallback: false,
        },
        {
          messageId: 'msg_u2',
          role: 'user',
          text: 'Yes',
          at: '2026-11-21T09:00:03.000Z',
          inReplyTo: null,
          agentName: null,
          actionSet: null,
          actionEvent: null,
          usedFallback: null,
        },
        {
          messageId: 'msg_a2',
          role: 'agent',
          text: 'Done.',
          at: '2026-11-21T09:00:04.000Z',
          inReplyTo: null,
          agentName: 'billing-assistant',
          actionSet: null,
          actionEvent: null,
          usedFallback: null,
        },
        {
          messageId: 'msg_u3',
          role: 'user',
          text: 'Thanks!',
          at: '2026-11-21T09:00:04.000Z',
          inReplyTo: null,
          agentName: null,
          actionSet: null,
          actionEvent: null,
          usedFallback: null,
        },
      ],
      pagination: { total: 5, limit: 50, offset: 0 },
      hasMore: false,
      freshness: { position: formatPosition(last), recordedAt: lastRecordedAt.toISOString() },
    });
  });

  it('200: pages with limit and offset; a user JWT reaching the project with conversations.read', async () => {
    const first = (await get(url(sessionId, projectId, '?limit=2'))).json();
    expect(first.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['msg_u1', 'msg_a1']);
    expect(first.pagination).toEqual({ total: 5, limit: 2, offset: 0 });
    expect(first.hasMore).toBe(true);
    const lastPage = (await get(url(sessionId, projectId, '?limit=2&offset=4'))).json();
    expect(lastPage.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['msg_u3']);
    expect(lastPage.hasMore).toBe(false);
    const beyond = (await get(url(sessionId, projectId, '?offset=10'))).json();
    expect(beyond).toMatchObject({ messages: [], pagination: { total: 5, offset: 10 }, hasMore: false });
    const token = jwt({
      sub: 'user_1',
      tenant_id: tenantId,
      project_ids: [projectId],
      scope: 'conversations.read',
    });
    const viaJwt = await get(url(), { authorization: `Bearer ${token}` });
    expect(viaJwt.statusCode).toBe(200);
    expect(viaJwt.json().pagination.total).toBe(5);
  });

  it('200 with no messages for a session that only started', async () => {
    const res = await get(url(startedOnlyId));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      sessionId: startedOnlyId,
      messages: [],
      pagination: { total: 0, limit: 50, offset: 0 },
      hasMore: false,
    });
  });

  it('400 INVALID_SESSION_ID past 256 characters', async () => {
    const res = await get(url('s'.repeat(257)));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'INVALID_SESSION_ID', message: 'sessionId must be 1..256 characters' },
    });
    expect((await get(url('s'.repeat(256)))).statusCode).toBe(404);
  });

  it('400 VALIDATION_ERROR for limit or offset out of range, naming the parameter', async () => {
    for (const [q, parameter] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
    ] as const) {
      const res = await get(url(sessionId, projectId, `?${q}`));
      expect(res.statusCode, q).toBe(400);
      expect(errorOf(res)).toBe('VALIDATION_ERROR');
      expect(res.json().error.message).toContain(parameter);
    }
    expect((await get(url(sessionId, projectId, '?limit=200'))).statusCode).toBe(200);
  });

  it('401 in the authentication envelope: missing, unknown key, bad JWT', async () => {
    for (const headers of [
      {},
      { 'x-api-key': 'plat_unknown0000000000000000000000' },
      { authorization: `Bearer ${jwt({ sub: 'u', tenant_id: tenantId })}x` },
    ] as Array<Record<string, string>>) {
      const res = await get(url(), headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: expect.any(String), requestId: 'req-1' });
    }
  });

  it('403 PERMISSION_REQUIRED (required: conversation:read) for a key or JWT without conversations.read', async () => {
    const token = jwt({ sub: 'u', tenant_id: tenantId, project_ids: [projectId], scope: 'traces.read' });
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'x-api-key': tracesKey }, 'This API key lacks the permission conversation:read'],
      [{ authorization: `Bearer ${token}` }, 'This token lacks the permission conversation:read'],
    ];
    for (const [headers, message] of cases) {
      const res = await get(url(), headers);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'PERMISSION_REQUIRED', message },
        required: 'conversation:read',
      });
    }
  });

  it('403 FORBIDDEN for a pk_ key, an SDK token or an app assertion', async () => {
    for (const headers of [
      { 'x-api-key': 'pk_live_abcdef' },
      { 'x-sdk-token': jwt({ sub: 'visitor', typ: 'sdk' }) },
      { auth: jwt({ sub: 'app' }) },
    ] as Array<Record<string, string>>) {
      const res = await get(url(), headers);
      expect(res.statusCode, JSON.stringify(Object.keys(headers))).toBe(403);
      expect(errorOf(res)).toBe('FORBIDDEN');
    }
  });

  it('404 PROJECT_NOT_FOUND for a project the credential does not reach', async () => {
    const res = await get(url(sessionId, otherProjectId));
    expect(res.statusCode).toBe(404);
    expect(errorOf(res)).toBe('PROJECT_NOT_FOUND');
    const token = jwt({
      sub: 'u',
      tenant_id: tenantId,
      project_ids: [otherProjectId],
      scope: 'conversations.read',
    });
    expect(errorOf(await get(url(), { authorization: `Bearer ${token}` }))).toBe('PROJECT_NOT_FOUND');
  });

  it('404 SESSION_NOT_FOUND for an unknown session, or one of another project', async () => {
    const res = await get(url('sess_nope'));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'SESSION_NOT_FOUND', message: 'Session not found' },
    });
    const elsewhere = await get(url(sessionId, otherProjectId), { 'x-api-key': otherKey });
    expect(elsewhere.statusCode).toBe(404);
    expect(errorOf(elsewhere)).toBe('SESSION_NOT_FOUND');
  });

  it('429 past the tenant rate limit', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      codes.push(
        (await limitedApp.inject({ method: 'GET', url: url(), headers: { 'x-api-key': key } })).statusCode,
      );
    }
    expect(codes).toContain(429);
    const res = await limitedApp.inject({ method: 'GET', url: url(), headers: { 'x-api-key': key } });
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({ error: 'Too many requests', retryAfterMs: expect.any(Number) });
  });

  it('is documented in /openapi.json', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const path = '/api/projects/{projectId}/sessions/{sessionId}/messages';
    expect(
      openApiProblems(document, [
        { method: 'GET', url: '/api/projects/:projectId/sessions/:sessionId/messages' },
      ]),
    ).toEqual([]);
    const responses = document.paths[path].get.responses;
    expect(Object.keys(responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '429']),
    );
    const message = responses['200'].content['application/json'].schema.properties.messages.items;
    expect(Object.keys(message.properties)).toEqual([
      'messageId',
      'role',
      'text',
      'at',
      'inReplyTo',
      'agentName',
      'actionSet',
      'actionEvent',
      'usedFallback',
    ]);
  });
});
