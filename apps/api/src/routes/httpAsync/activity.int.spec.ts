import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  agentMediaPayloadSchema,
  agentResponsePayloadSchema,
  agentStatusPayloadSchema,
  channelInboundMigrations,
  checkCallbackUrl,
  createChannelJobQueue,
  createKeyring,
  createSubscriptionStore,
  ensureHttpAsyncQueues,
  HTTP_ASYNC_CALLBACK_QUEUE,
  type HttpAsyncCallbackJobData,
  httpAsyncAttemptJobId,
  httpAsyncDeliveryId,
  httpAsyncEventId,
  httpAsyncMigrations,
  parseCallbackAllowlist,
  type SubscriptionStore,
} from '@parley/channels';
import { type EventDataInput, httpAsyncStream, toAppend, upcast } from '@parley/events';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
  type RecordedEvent,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { httpAsyncActivityProjection } from '@parley/projection-http-async-activity';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
} from '@parley/projection-runner';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

let db: TestDatabase;
let auth: AuthStore;
let store: PostgresEventStore;
let boss: PgBoss;
let runner: ProjectionRunner | undefined;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let subscriptions: SubscriptionStore;
let tenantId: string;
let projectId: string;
let writeKey: string;
let readKey: string;
let otherKey: string;
let agentsKey: string;

const allowlist = parseCallbackAllowlist('127.0.0.1/32');
const startRunner = async () => {
  runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [httpAsyncActivityProjection],
    pollIntervalMs: 20,
  });
  await runner.start();
};

beforeAll(async () => {
  db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    channelInboundMigrations,
    httpAsyncMigrations,
  ]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  const otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  writeKey = (await auth.createApiKey({ projectId, name: 'w', scopes: ['channels.write'] })).key;
  readKey = (await auth.createApiKey({ projectId, name: 'r', scopes: ['channels.read'] })).key;
  agentsKey = (await auth.createApiKey({ projectId, name: 'a', scopes: ['agents.write'] })).key;
  otherKey = (await auth.createApiKey({ projectId: otherProjectId, name: 'o', scopes: ['channels.write'] }))
    .key;
  subscriptions = createSubscriptionStore(db.pool, createKeyring(randomBytes(32)), {
    checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
  });
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureHttpAsyncQueues(boss);
  await startRunner();
  const common = {
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
  };
  const activity = {
    verifyApiKey: (k: string) => auth.verifyApiKey(k),
    pool: db.pool,
    store,
    boss: createChannelJobQueue(db.pool),
    retryScheduleSeconds: [1, 2],
  };
  app = await buildApp({ ...common, httpAsyncActivity: { ...activity, subscriptions } });
  unconfigured = await buildApp({ ...common, httpAsyncActivity: { ...activity, subscriptions: null } });
});
afterAll(async () => {
  await runner?.stop();
  await app?.close();
  await unconfigured?.close();
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await store?.close();
  await db?.close();
});

const base = (id: string) => `/api/projects/${projectId}/webhook-subscriptions/${id}`;
const call = (method: 'GET' | 'POST', url: string, key: string, payload?: object) =>
  app.inject({ method, url, headers: { 'x-api-key': key }, ...(payload === undefined ? {} : { payload }) });

const newSubscription = async (events: Array<'agent.response' | 'agent.status' | 'agent.media'>) =>
  (
    await subscriptions.create(projectId, {
      displayName: 'Orders',
      callbackUrl: 'https://127.0.0.1:8443/cb',
      events,
      authMode: 'hmac',
      status: 'active',
    })
  ).subscription;

async function streamOf(deliveryId: string): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for await (const e of store.readStream(httpAsyncStream(deliveryId))) events.push(e);
  return events;
}

/** The GET answers, as far as the polls read them. */
type Answer = {
  deliveries: Array<Record<string, unknown>>;
  delivery: Record<string, unknown> & { status: string };
  attempts: unknown[];
  freshness?: { position: string | null };
};

/**
 * Polls a GET until `done` holds (the projection is a little behind the log) and its `freshness`
 * has caught up too: the route reads freshness before its query, so a poll can see the new rows with
 * the checkpoint read an instant earlier.
 */
async function until(url: string, done: (body: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await call('GET', url, readKey);
    const body = res.statusCode === 200 ? res.json<Answer>() : undefined;
    if (body !== undefined && done(body) && body.freshness?.position !== null) return body;
    if (Date.now() > deadline) throw new Error(`timed out: ${res.statusCode} ${res.body}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Scope = { deliveryId: string; messageId: string; subscriptionId: string; eventType: 'agent.response' };
const meta = (s: Scope) => ({ tenantId, projectId, correlationId: s.messageId });
/** What the delivery worker appends for one attempt (and the outcome), as it would. */
async function workerAppends(
  s: Scope,
  attempt: number,
  data: Partial<EventDataInput<'HttpAsyncCallbackAttempted'>>,
  outcome?: 'delivered' | 'dead-lettered',
) {
  const scope = { ...s, projectId };
  const events = [
    toAppend(
      'HttpAsyncCallbackAttempted',
      {
        ...scope,
        attempt,
        result: 'failed',
        latencyMs: 30 + attempt,
        attemptedAt: `2025-03-01T10:0${attempt}:00.000Z`,
        ...data,
      },
      meta(s),
      httpAsyncEventId('attempted', s.deliveryId, attempt),
    ),
  ];
  if (outcome === 'delivered') {
    events.push(
      toAppend(
        'HttpAsyncCallbackDelivered',
        { ...scope, attempts: attempt, status: 200, deliveredAt: `2025-03-01T10:0${attempt}:00.500Z` },
        meta(s),
        httpAsyncEventId('delivered', s.deliveryId, attempt),
      ),
    );
  }
  if (outcome === 'dead-lettered') {
    events.push(
      toAppend(
        'HttpAsyncCallbackDeadLettered',
        {
          ...scope,
          reason: 'attempts_exhausted',
          attempts: attempt,
          lastError: 'HTTP 502',
          lastStatus: 502,
          deadLetteredAt: `2025-03-01T10:0${attempt}:00.500Z`,
        },
        meta(s),
        httpAsyncEventId('dead-lettered', s.deliveryId, attempt),
      ),
    );
  }
  await store.append(httpAsyncStream(s.deliveryId), events);
}

const errorBody = (code: string) => ({ success: false, error: { code, message: expect.any(String) } });

describe('POST .../test', () => {
  it('queues a valid agent.response test callback (event and job in one transaction) that the Activity log shows', async () => {
    const sub = await newSubscription(['agent.response', 'agent.status']);
    const res = await call('POST', `${base(sub.id)}/test`, writeKey);
    expect(res.statusCode).toBe(202);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      success: true,
      deliveryId: expect.any(String),
      messageId: expect.stringMatching(/^ham_[0-9A-Za-z]{20}$/),
      firstAttempt: 1,
    });
    const { deliveryId, messageId } = body;
    expect(deliveryId).toBe(httpAsyncDeliveryId(sub.id, messageId, 'agent.response', 'test'));

    const [queued, ...more] = await streamOf(deliveryId);
    expect(more).toEqual([]);
    expect(queued?.eventId).toBe(httpAsyncEventId('queued', deliveryId, 1));
    expect(queued?.metadata).toMatchObject({ tenantId, projectId, correlationId: messageId });
    const payload = agentResponsePayloadSchema.parse(queued?.data.payload);
    expect(payload).toEqual({
      message_id: messageId,
      session_key: `ha:${sub.id}:test`,
      response: 'This is a test message from Parley.',
      channel_output: { kind: 'text', text: 'This is a test message from Parley.' },
      outcome: { status: 'ok', usedFallback: false },
      trace_context: { session_id: null, delivery: deliveryId },
      session_id: null,
      is_new_session: false,
      response_metadata: {
        isLlmGenerated: false,
        responseProvenance: {
          schemaVersion: 1,
          kind: 'static',
          disclaimerRequired: false,
          usedLlmInternally: false,
        },
      },
      metadata: { test: true },
    });
    expect(queued?.data).toEqual({
      messageId,
      projectId,
      subscriptionId: sub.id,
      deliveryId,
      eventType: 'agent.response',
      payload,
      test: true,
      firstAttempt: 1,
      maxAttempts: 3,
      queuedAt: expect.any(String),
    });
    const job = await boss.getJobById<HttpAsyncCallbackJobData>(
      HTTP_ASYNC_CALLBACK_QUEUE,
      httpAsyncAttemptJobId(deliveryId, 1),
    );
    expect(job?.data).toEqual({
      deliveryId,
      messageId,
      subscriptionId: sub.id,
      projectId,
      tenantId,
      eventType: 'agent.response',
      payload,
      test: true,
      attempt: 1,
      firstAttempt: 1,
      lastAttempt: 3,
    });

    const list = await until(`${base(sub.id)}/deliveries`, (b) => b.deliveries.length === 1);
    const queuedAt = queued?.data.queuedAt as string;
    const row = {
      deliveryId,
      subscriptionId: sub.id,
      messageId,
      eventType: 'agent.response',
      sessionId: null,
      test: true,
      status: 'pending',
      attempts: 0,
      maxAttempts: 3,
      lastStatus: null,
      lastLatencyMs: null,
      lastError: null,
      lastAttemptAt: null,
      nextAttemptAt: null,
      deadLetterReason: null,
      queuedAt,
      redeliveredAt: null,
      deliveredAt: null,
      deadLetteredAt: null,
      updatedAt: queuedAt,
    };
    expect(list).toEqual({
      success: true,
      deliveries: [row],
      pagination: { total: 1, limit: 50, offset: 0 },
      freshness: { position: expect.stringMatching(/^\d+\/\d+$/), recordedAt: expect.any(String) },
    });
    const shown = await call('GET', `${base(sub.id)}/deliveries/${deliveryId}`, readKey);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['cache-control']).toBe('no-store');
    expect(shown.json()).toEqual({
      success: true,
      delivery: { ...row, payload },
      attempts: [],
      freshness: { position: expect.any(String), recordedAt: expect.any(String) },
    });
  });

  it('sends the event type asked for, defaults to the subscription’s first one without agent.response', async () => {
    const sub = await newSubscription(['agent.response', 'agent.status']);
    const status = await call('POST', `${base(sub.id)}/test`, writeKey, { eventType: 'agent.status' });
    expect(status.statusCode).toBe(202);
    const [event] = await streamOf(status.json().deliveryId);
    expect(event?.data.eventType).toBe('agent.status');
    expect(agentStatusPayloadSchema.parse(event?.data.payload)).toMatchObject({
      message_id: status.json().messageId,
      status: 'completed',
      previous_status: 'processing',
      session_id: null,
      metadata: { test: true },
    });

    const media = await newSubscription(['agent.media']);
    const res = await call('POST', `${base(media.id)}/test`, writeKey, {});
    expect(res.statusCode).toBe(202);
    const [mediaEvent] = await streamOf(res.json().deliveryId);
    expect(mediaEvent?.data.eventType).toBe('agent.media');
    expect(agentMediaPayloadSchema.parse(mediaEvent?.data.payload).media).toHaveLength(1);
    expect(res.json().deliveryId).toBe(
      httpAsyncDeliveryId(media.id, res.json().messageId, 'agent.media', 'test'),
    );
  });

  it('answers 400 EVENT_NOT_SUBSCRIBED and VALIDATION_ERROR, 409 SUBSCRIPTION_PAUSED', async () => {
    const sub = await newSubscription(['agent.response']);
    const notSubscribed = await call('POST', `${base(sub.id)}/test`, writeKey, { eventType: 'agent.media' });
    expect(notSubscribed.statusCode).toBe(400);
    expect(notSubscribed.json()).toEqual(errorBody('EVENT_NOT_SUBSCRIBED'));
    for (const payload of [{ eventType: 'agent.typing' }, { extra: 1 }]) {
      const bad = await call('POST', `${base(sub.id)}/test`, writeKey, payload);
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
      expect(bad.json().error.code).toBe('VALIDATION_ERROR');
    }
    await subscriptions.update(projectId, sub.id, { status: 'paused' });
    const paused = await call('POST', `${base(sub.id)}/test`, writeKey);
    expect(paused.statusCode).toBe(409);
    expect(paused.json()).toEqual(errorBody('SUBSCRIPTION_PAUSED'));
    const list = await call('GET', `${base(sub.id)}/deliveries`, readKey);
    expect(list.json().pagination.total).toBe(0);
  });
});

describe('the Activity log and redelivery', () => {
  it('shows attempts, redelivers a dead letter once with the next attempt numbers, refuses one in progress', async () => {
    const sub = await newSubscription(['agent.response']);
    const { deliveryId, messageId } = (await call('POST', `${base(sub.id)}/test`, writeKey)).json();
    const s: Scope = { deliveryId, messageId, subscriptionId: sub.id, eventType: 'agent.response' };
    const detail = `${base(sub.id)}/deliveries/${deliveryId}`;
    const redeliver = `${detail}/redeliver`;

    // Pending: 409.
    await until(detail, (b) => b.delivery.status === 'pending');
    const pending = await call('POST', redeliver, writeKey);
    expect(pending.statusCode).toBe(409);
    expect(pending.json()).toEqual(errorBody('DELIVERY_IN_PROGRESS'));

    // Failed with a retry due: 409.
    await workerAppends(s, 1, { status: 503, error: 'HTTP 503', nextAttemptAt: '2025-03-01T10:01:01.000Z' });
    const failed = await until(detail, (b) => b.delivery.status === 'failed');
    expect(failed.delivery).toMatchObject({
      attempts: 1,
      lastStatus: 503,
      lastError: 'HTTP 503',
      lastLatencyMs: 31,
      lastAttemptAt: '2025-03-01T10:01:00.000Z',
      nextAttemptAt: '2025-03-01T10:01:01.000Z',
    });
    expect((await call('POST', redeliver, writeKey)).json()).toEqual(errorBody('DELIVERY_IN_PROGRESS'));

    await workerAppends(s, 2, { result: 'refused', error: 'forbidden_address' }, 'dead-lettered');
    const dead = await until(detail, (b) => b.delivery.status === 'dead_lettered');
    expect(dead.delivery).toMatchObject({
      status: 'dead_lettered',
      attempts: 2,
      lastStatus: 502,
      lastError: 'HTTP 502',
      deadLetterReason: 'attempts_exhausted',
      deadLetteredAt: '2025-03-01T10:02:00.500Z',
      nextAttemptAt: null,
    });
    expect(dead.attempts).toEqual([
      {
        attempt: 1,
        result: 'failed',
        status: 503,
        latencyMs: 31,
        error: 'HTTP 503',
        attemptedAt: '2025-03-01T10:01:00.000Z',
        nextAttemptAt: '2025-03-01T10:01:01.000Z',
      },
      {
        attempt: 2,
        result: 'refused',
        status: null,
        latencyMs: 32,
        error: 'forbidden_address',
        attemptedAt: '2025-03-01T10:02:00.000Z',
        nextAttemptAt: null,
      },
    ]);

    // Decided from the log: the second request, right after the first, finds it pending.
    const first = await call('POST', redeliver, writeKey);
    expect(first.statusCode).toBe(202);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.json()).toEqual({ success: true, deliveryId, messageId, firstAttempt: 3 });
    const second = await call('POST', redeliver, writeKey);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toEqual(errorBody('DELIVERY_IN_PROGRESS'));
    const events = await streamOf(deliveryId);
    const requeued = events.filter((e) => e.type === 'HttpAsyncCallbackQueued');
    expect(requeued).toHaveLength(2);
    expect(requeued[1]?.data).toEqual({
      ...requeued[0]?.data,
      firstAttempt: 3,
      queuedAt: expect.any(String),
    });
    const job = await boss.getJobById<HttpAsyncCallbackJobData>(
      HTTP_ASYNC_CALLBACK_QUEUE,
      httpAsyncAttemptJobId(deliveryId, 3),
    );
    expect(job?.data).toMatchObject({ deliveryId, messageId, attempt: 3, firstAttempt: 3, lastAttempt: 5 });
    const again = await until(detail, (b) => b.delivery.status === 'pending');
    expect(again.delivery).toMatchObject({
      attempts: 2,
      deadLetterReason: null,
      deadLetteredAt: null,
      redeliveredAt: requeued[1]?.data.queuedAt,
      queuedAt: requeued[0]?.data.queuedAt,
    });

    // Delivered: may be delivered again, after the attempts made.
    await workerAppends(s, 3, { result: 'delivered', status: 200 }, 'delivered');
    await until(detail, (b) => b.delivery.status === 'delivered');
    const redelivered = await call('POST', redeliver, writeKey, {});
    expect(redelivered.statusCode).toBe(202);
    expect(redelivered.json().firstAttempt).toBe(4);
  });

  it('after a dead letter for a paused subscription, the redelivery skips the attempt number that found it paused', async () => {
    const sub = await newSubscription(['agent.response']);
    const { deliveryId, messageId } = (await call('POST', `${base(sub.id)}/test`, writeKey)).json();
    const s: Scope = { deliveryId, messageId, subscriptionId: sub.id, eventType: 'agent.response' };
    await workerAppends(s, 1, { status: 500, error: 'HTTP 500', nextAttemptAt: '2025-03-01T10:01:01.000Z' });
    // The job of attempt 2 found the subscription paused (as the delivery worker records it).
    await store.append(httpAsyncStream(deliveryId), [
      toAppend(
        'HttpAsyncCallbackDeadLettered',
        {
          ...s,
          projectId,
          reason: 'subscription_paused',
          attempts: 1,
          lastError: 'HTTP 500',
          lastStatus: 500,
          deadLetteredAt: '2025-03-01T10:01:01.000Z',
        },
        meta(s),
        httpAsyncEventId('dead-lettered', deliveryId, 2),
      ),
    ]);
    const res = await call('POST', `${base(sub.id)}/deliveries/${deliveryId}/redeliver`, writeKey);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ success: true, deliveryId, messageId, firstAttempt: 3 });
    const job = await boss.getJobById<HttpAsyncCallbackJobData>(
      HTTP_ASYNC_CALLBACK_QUEUE,
      httpAsyncAttemptJobId(deliveryId, 3),
    );
    expect(job?.data).toMatchObject({ attempt: 3, firstAttempt: 3, lastAttempt: 5 });
    const shown = await until(
      `${base(sub.id)}/deliveries/${deliveryId}`,
      (b) => b.delivery.status === 'pending' && b.delivery.redeliveredAt !== null,
    );
    expect(shown.delivery).toMatchObject({ attempts: 1, maxAttempts: 3, deadLetterReason: null });
  });

  it('filters and pages the list newest first', async () => {
    const sub = await newSubscription(['agent.response', 'agent.status']);
    const ids: string[] = [];
    for (const eventType of ['agent.response', 'agent.status', 'agent.response']) {
      ids.push((await call('POST', `${base(sub.id)}/test`, writeKey, { eventType })).json().deliveryId);
    }
    const url = `${base(sub.id)}/deliveries`;
    const all = await until(url, (b) => b.deliveries.length === 3);
    const order = (all.deliveries as unknown as Array<{ deliveryId: string }>).map((d) => d.deliveryId);
    expect([...order].sort()).toEqual([...ids].sort());
    const queuedAts = (all.deliveries as unknown as Array<{ queuedAt: string }>).map((d) => d.queuedAt);
    expect([...queuedAts].sort().reverse()).toEqual(queuedAts);

    const page = (await call('GET', `${url}?limit=1&offset=1`, readKey)).json();
    expect(page.deliveries.map((d: { deliveryId: string }) => d.deliveryId)).toEqual([order[1]]);
    expect(page.pagination).toEqual({ total: 3, limit: 1, offset: 1 });
    const statuses = (await call('GET', `${url}?eventType=agent.status`, readKey)).json();
    expect(statuses.deliveries.map((d: { deliveryId: string }) => d.deliveryId)).toEqual([ids[1]]);
    expect(statuses.pagination.total).toBe(1);
    const one = (all.deliveries as unknown as Array<{ messageId: string; deliveryId: string }>)[2];
    const byMessage = (await call('GET', `${url}?messageId=${one?.messageId}`, readKey)).json();
    expect(byMessage.deliveries.map((d: { deliveryId: string }) => d.deliveryId)).toEqual([one?.deliveryId]);
    expect((await call('GET', `${url}?status=pending`, readKey)).json().pagination.total).toBe(3);
    expect((await call('GET', `${url}?status=delivered`, readKey)).json().deliveries).toEqual([]);
    for (const q of [
      'limit=0',
      'limit=201',
      'offset=-1',
      'status=bogus',
      'eventType=agent.typing',
      'page=2',
    ]) {
      const res = await call('GET', `${url}?${q}`, readKey);
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('credentials, not found, not configured', () => {
  it('checks the credential, the project and the permission on every route', async () => {
    const sub = await newSubscription(['agent.response']);
    const routes = [
      ['GET', `${base(sub.id)}/deliveries`, 'read'],
      ['GET', `${base(sub.id)}/deliveries/d-1`, 'read'],
      ['POST', `${base(sub.id)}/test`, 'write'],
      ['POST', `${base(sub.id)}/deliveries/d-1/redeliver`, 'write'],
    ] as const;
    for (const [method, url, need] of routes) {
      expect((await app.inject({ method, url })).statusCode, url).toBe(401);
      const foreign = await call(method, url, otherKey);
      expect(foreign.statusCode, url).toBe(404);
      expect(foreign.json().error.code).toBe('PROJECT_NOT_FOUND');
      const noScope = await call(method, url, need === 'read' ? agentsKey : readKey);
      expect(noScope.statusCode, url).toBe(403);
      expect(noScope.json().error.code).toBe('PERMISSION_REQUIRED');
    }
  });

  it('answers 404 SUBSCRIPTION_NOT_FOUND and DELIVERY_NOT_FOUND', async () => {
    const sub = await newSubscription(['agent.response']);
    const other = await newSubscription(['agent.response']);
    const { deliveryId } = (await call('POST', `${base(other.id)}/test`, writeKey)).json();
    await until(`${base(other.id)}/deliveries/${deliveryId}`, () => true);
    const deleted = await newSubscription(['agent.response']);
    await subscriptions.delete(projectId, deleted.id);
    for (const id of ['sub_0000000000000000', deleted.id]) {
      for (const [method, url] of [
        ['GET', `${base(id)}/deliveries`],
        ['GET', `${base(id)}/deliveries/${deliveryId}`],
        ['POST', `${base(id)}/test`],
        ['POST', `${base(id)}/deliveries/${deliveryId}/redeliver`],
      ] as const) {
        const res = await call(method, url, writeKey);
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json()).toEqual(errorBody('SUBSCRIPTION_NOT_FOUND'));
      }
    }
    // Another subscription's delivery, and one that does not exist.
    for (const id of [deliveryId, 'no-such-delivery']) {
      const shown = await call('GET', `${base(sub.id)}/deliveries/${id}`, readKey);
      expect(shown.statusCode).toBe(404);
      expect(shown.json()).toEqual(errorBody('DELIVERY_NOT_FOUND'));
      const again = await call('POST', `${base(sub.id)}/deliveries/${id}/redeliver`, writeKey);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual(errorBody('DELIVERY_NOT_FOUND'));
    }
  });

  it('answers 409 SUBSCRIPTION_PAUSED on redelivery to a paused subscription', async () => {
    const sub = await newSubscription(['agent.response']);
    const { deliveryId, messageId } = (await call('POST', `${base(sub.id)}/test`, writeKey)).json();
    await workerAppends(
      { deliveryId, messageId, subscriptionId: sub.id, eventType: 'agent.response' },
      1,
      { result: 'delivered', status: 204 },
      'delivered',
    );
    await until(`${base(sub.id)}/deliveries/${deliveryId}`, (b) => b.delivery.status === 'delivered');
    await subscriptions.update(projectId, sub.id, { status: 'paused' });
    const res = await call('POST', `${base(sub.id)}/deliveries/${deliveryId}/redeliver`, writeKey);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual(errorBody('SUBSCRIPTION_PAUSED'));
  });

  it('answers 503 CHANNELS_NOT_CONFIGURED without a credentials key', async () => {
    for (const [method, url] of [
      ['GET', `${base('sub_0000000000000000')}/deliveries`],
      ['GET', `${base('sub_0000000000000000')}/deliveries/d`],
      ['POST', `${base('sub_0000000000000000')}/test`],
      ['POST', `${base('sub_0000000000000000')}/deliveries/d/redeliver`],
    ] as const) {
      const res = await unconfigured.inject({ method, url, headers: { 'x-api-key': writeKey } });
      expect(res.statusCode, `${method} ${url}`).toBe(503);
      expect(res.json()).toEqual(errorBody('CHANNELS_NOT_CONFIGURED'));
    }
  });

  it.each([
    ['whose pg-boss schema exists but whose queues were never created', true],
    ['where pg-boss never ran at all (no schema: a 500 before)', false],
  ])(
    'before any worker ran, a database %s: 503 CALLBACK_QUEUE_MISSING, queueing nothing, and an empty Activity log',
    async (_, bossRan) => {
      // No worker ran: it creates the queues (and pg-boss its schema).
      const fresh = await createTestDatabase([
        eventStoreMigrations,
        projectionRunnerMigrations,
        authMigrations,
        channelInboundMigrations,
        httpAsyncMigrations,
      ]);
      const freshBoss = createChannelJobQueue(fresh.pool);
      if (bossRan) await freshBoss.start();
      const freshStore = createPostgresEventStore({ pool: fresh.pool, connectionString: fresh.url, upcast });
      const freshAuth = createAuthStore(fresh.pool);
      const tenant = (await freshAuth.createTenant({ name: 'T' })).id;
      const project = (await freshAuth.createProject({ tenantId: tenant, slug: 'p' })).id;
      const key = (
        await freshAuth.createApiKey({ projectId: project, name: 'w', scopes: ['channels.write'] })
      ).key;
      const freshSubscriptions = createSubscriptionStore(fresh.pool, createKeyring(randomBytes(32)), {
        checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
      });
      const sub = (
        await freshSubscriptions.create(project, {
          displayName: 'x',
          callbackUrl: 'https://127.0.0.1:8443/cb',
          events: ['agent.response'],
          authMode: 'hmac',
          status: 'active',
        })
      ).subscription;
      const freshApp = await buildApp({
        logger: silentLogger(),
        readiness: { database: async () => true, pendingMigrations: async () => [] },
        httpAsyncActivity: {
          verifyApiKey: (k) => freshAuth.verifyApiKey(k),
          subscriptions: freshSubscriptions,
          pool: fresh.pool,
          store: freshStore,
          boss: freshBoss,
        },
      });
      try {
        const res = await freshApp.inject({
          method: 'POST',
          url: `/api/projects/${project}/webhook-subscriptions/${sub.id}/test`,
          headers: { 'x-api-key': key },
        });
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual(errorBody('CALLBACK_QUEUE_MISSING'));
        // The projection was never registered either: an empty log, not an error.
        const url = `/api/projects/${project}/webhook-subscriptions/${sub.id}/deliveries`;
        const list = await freshApp.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
        expect(list.statusCode).toBe(200);
        expect(list.json()).toEqual({
          success: true,
          deliveries: [],
          pagination: { total: 0, limit: 50, offset: 0 },
          freshness: { position: null, recordedAt: null },
        });
        const one = await freshApp.inject({
          method: 'GET',
          url: `${url}/d-1`,
          headers: { 'x-api-key': key },
        });
        expect(one.json()).toEqual(errorBody('DELIVERY_NOT_FOUND'));
        expect(await freshStore.head()).toBeNull();
      } finally {
        await freshApp.close();
        if (bossRan) await freshBoss.stop({ graceful: false, timeout: 5_000 });
        await freshStore.close();
        await fresh.close();
      }
    },
  );
});

describe('OpenAPI', () => {
  it('documents the Activity log operations in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    const url = '/api/projects/:projectId/webhook-subscriptions/:id';
    expect(
      openApiProblems(document, [
        { method: 'GET', url: `${url}/deliveries` },
        { method: 'GET', url: `${url}/deliveries/:deliveryId` },
        { method: 'POST', url: `${url}/test` },
        { method: 'POST', url: `${url}/deliveries/:deliveryId/redeliver` },
      ]),
    ).toEqual([]);
  });
});
