import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authMigrations, createAuthStore } from '@parley/auth';
import { httpAsyncStream, upcast } from '@parley/events';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
  type RecordedEvent,
} from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  type Runtime,
  runtimeMigrations,
} from '@parley/runtime';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyring } from '../crypto/keyring.js';
import { createChannelJobQueue } from '../inbound/jobs.js';
import { channelInboundMigrations } from '../inbound/migrations.js';
import { verifyCallbackBearer, verifyCallbackSignature } from './callbackSignature.js';
import { checkCallbackUrl, parseCallbackAllowlist } from './callbackUrl.js';
import { processHttpAsyncCallbackJob } from './delivery.js';
import { createGuardedFetch, type GuardedFetch } from './guardedFetch.js';
import {
  HTTP_ASYNC_TURN_QUEUE,
  type HttpAsyncCallbackJobData,
  type HttpAsyncRoute,
  type HttpAsyncTurnJobData,
  httpAsyncDeliveryId,
  httpAsyncTurnJobId,
  newCanonicalSessionKey,
  newHttpAsyncMessageId,
} from './jobs.js';
import { httpAsyncMigrations } from './migrations.js';
import {
  agentResponsePayloadSchema,
  agentStatusPayloadSchema,
  legacyResponsePayloadSchema,
  legacyStatusPayloadSchema,
} from './payloads.js';
import type { SubscriptionInput, WebhookEventType } from './subscriptionSchema.js';
import { createSubscriptionStore, type SubscriptionStore } from './subscriptionStore.js';
import { type HttpAsyncWorkerDeps, processHttpAsyncTurnJob } from './turn.js';
import { type HttpAsyncWorkers, workHttpAsyncQueues } from './work.js';

/**
 * The worker side of the HTTP async channel, real end to end: PostgreSQL, the log, pg-boss with
 * the HTTP async workers, the runtime with its scripted provider, the guarded fetch and a local
 * receiver over plain http (allowlisted 127.0.0.1/32). The retry schedule is 50 ms, 50 ms (3
 * attempts), so retries are due at the workers' next poll (0.5 s).
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

const allowlist = parseCallbackAllowlist('127.0.0.1/32');
const SCHEDULE = [0.05, 0.05];
let db: TestDatabase;
let store: PostgresEventStore;
let runtime: Runtime;
let subscriptions: SubscriptionStore;
let boss: PgBoss;
let workers: HttpAsyncWorkers;
let deps: HttpAsyncWorkerDeps;
let guarded: GuardedFetch;
let receiver: Server;
let baseUrl: string;
let turns = 0;
const received: Received[] = [];
/** Answers by callback path: a queue of statuses (the last one repeats); 200 when none is set. */
const answers = new Map<string, number[]>();
const auth = () => createAuthStore(db.pool);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '';
      received.push({ path, headers: req.headers, raw, body: JSON.parse(raw) as Record<string, unknown> });
      const queue = answers.get(path) ?? [];
      const status = queue.length > 1 ? (queue.shift() as number) : (queue[0] ?? 200);
      // -1: a receiver too slow to answer in time.
      setTimeout(
        () => {
          res.writeHead(status === -1 ? 200 : status, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        },
        status === -1 ? 1_000 : 0,
      );
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelInboundMigrations,
    httpAsyncMigrations,
  ]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  subscriptions = createSubscriptionStore(db.pool, createKeyring(randomBytes(32)), {
    checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
  });
  guarded = createGuardedFetch({ allowlist });
  deps = {
    pool: db.pool,
    store,
    logger: silentLogger(),
    subscriptions,
    runTurn: (req) => {
      turns += 1;
      return runtime.runTurn(req);
    },
    fetch: guarded,
    retryScheduleSeconds: SCHEDULE,
  };
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  workers = await workHttpAsyncQueues(boss, deps, { pollingIntervalSeconds: 0.5 });
}, 60_000);

afterAll(async () => {
  await boss?.stop({ graceful: true, timeout: 10_000 });
  guarded?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await store?.close();
  await db?.close();
});

let projects = 0;
async function subscribe(
  extra: Partial<SubscriptionInput> = {},
): Promise<{ id: string; projectId: string; tenantId: string; secret?: string; path: string }> {
  projects += 1;
  const tenant = await auth().createTenant({ name: `http async ${projects}` });
  const project = await auth().createProject({ tenantId: tenant.id, slug: `http-async-${projects}` });
  const path = `/hooks/${projects}`;
  const created = await subscriptions.create(project.id, {
    displayName: `receiver ${projects}`,
    callbackUrl: `${baseUrl}${path}`,
    events: ['agent.response', 'agent.status'],
    ...extra,
  } as SubscriptionInput);
  return {
    id: created.subscription.id,
    projectId: project.id,
    tenantId: tenant.id,
    ...(created.secret === undefined ? {} : { secret: created.secret }),
    path,
  };
}

type Sub = Awaited<ReturnType<typeof subscribe>>;
const jobData = (
  sub: Sub,
  text: string,
  options: { route?: HttpAsyncRoute; sessionKey?: string; metadata?: Record<string, unknown> } = {},
): HttpAsyncTurnJobData => ({
  messageId: newHttpAsyncMessageId(),
  subscriptionId: sub.id,
  projectId: sub.projectId,
  tenantId: sub.tenantId,
  route: options.route ?? 'message',
  sessionKey: options.sessionKey ?? newCanonicalSessionKey(sub.id),
  newConversation: options.sessionKey === undefined,
  text,
  metadata: options.metadata ?? {},
  acceptedAt: new Date().toISOString(),
});

/** What the submit does for the worker: the turn job, announced (the workers here are woken directly). */
async function submit(data: HttpAsyncTurnJobData): Promise<HttpAsyncTurnJobData> {
  await boss.send(HTTP_ASYNC_TURN_QUEUE, data, {
    id: httpAsyncTurnJobId(data.subscriptionId, data.messageId),
  });
  workers.wake();
  return data;
}

const at = (path: string) => received.filter((r) => r.path === path);
const byEvent = (path: string, event: WebhookEventType) =>
  at(path).filter((r) => r.headers['x-parley-event'] === event);
async function until(predicate: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
async function events(deliveryId: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of store.readStream(httpAsyncStream(deliveryId))) out.push(e);
  return out;
}
const typesOf = async (deliveryId: string) => (await events(deliveryId)).map((e) => e.type);
const finished = async (deliveryId: string) =>
  (await typesOf(deliveryId)).some(
    (t) => t === 'HttpAsyncCallbackDelivered' || t === 'HttpAsyncCallbackDeadLettered',
  );
const sessionOf = async (sub: Sub, sessionKey: string) =>
  (
    await db.pool.query<{ session_id: string }>(
      'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
      [sub.id, sessionKey],
    )
  ).rows[0]?.session_id;

describe('HTTP async turn and callbacks', () => {
  it('answers a message with signed agent.status processing, agent.response and agent.status completed', async () => {
    const sub = await subscribe();
    const data = await submit(jobData(sub, 'Where is my order?', { metadata: { orderRef: 'A-1', n: 2 } }));
    await until(() => at(sub.path).length === 3);
    const sessionId = await sessionOf(sub, data.sessionKey);
    expect(sessionId).toMatch(/.+/);

    const [response] = byEvent(sub.path, 'agent.response');
    const responseDelivery = httpAsyncDeliveryId(sub.id, data.messageId, 'agent.response');
    expect(response?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Parley-Webhooks/1.0',
      'x-parley-event': 'agent.response',
      'x-parley-delivery': responseDelivery,
      'x-parley-attempt': '1',
    });
    expect(response?.headers.authorization).toBeUndefined();
    expect(
      verifyCallbackSignature({
        body: response?.raw ?? '',
        timestamp: response?.headers['x-parley-timestamp'] as string,
        signature: response?.headers['x-parley-signature'] as string,
        secret: sub.secret as string,
      }),
    ).toEqual({ ok: true });
    const body = agentResponsePayloadSchema.parse(response?.body);
    expect(body).toEqual({
      message_id: data.messageId,
      session_key: data.sessionKey,
      response: expect.stringContaining('(scripted)'),
      channel_output: { kind: 'text', text: body.response },
      outcome: { status: 'ok', usedFallback: false },
      trace_context: { session_id: sessionId, delivery: responseDelivery },
      session_id: sessionId,
      is_new_session: true,
      response_metadata: {
        isLlmGenerated: true,
        responseProvenance: {
          schemaVersion: 1,
          kind: 'llm_generated',
          disclaimerRequired: true,
          usedLlmInternally: true,
        },
      },
      metadata: { orderRef: 'A-1', n: 2 },
    });

    const statuses = byEvent(sub.path, 'agent.status').map((r) => agentStatusPayloadSchema.parse(r.body));
    statuses.sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));
    expect(statuses).toEqual([
      {
        message_id: data.messageId,
        session_key: data.sessionKey,
        session_id: null,
        status: 'processing',
        previous_status: null,
        occurred_at: expect.any(String),
        reason: null,
        session_ended: false,
        metadata: { orderRef: 'A-1', n: 2 },
      },
      {
        message_id: data.messageId,
        session_key: data.sessionKey,
        session_id: sessionId,
        status: 'completed',
        previous_status: 'processing',
        occurred_at: expect.any(String),
        reason: null,
        session_ended: false,
        metadata: { orderRef: 'A-1', n: 2 },
      },
    ]);
    for (const status of byEvent(sub.path, 'agent.status')) {
      expect(status.headers['x-parley-delivery']).toBe(
        httpAsyncDeliveryId(sub.id, data.messageId, 'agent.status', String(status.body.status)),
      );
    }

    // The log: queued, attempted (delivered), delivered, per delivery; the acceptance per message.
    await until(() => finished(responseDelivery));
    const log = await events(responseDelivery);
    expect(log.map((e) => e.type)).toEqual([
      'HttpAsyncCallbackQueued',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackDelivered',
    ]);
    expect(log[0]?.data).toMatchObject({
      payload: body,
      sessionId,
      test: false,
      firstAttempt: 1,
      maxAttempts: 3,
    });
    expect(log[1]?.data).toMatchObject({
      attempt: 1,
      result: 'delivered',
      status: 200,
      latencyMs: expect.any(Number),
    });
    expect(log[1]?.data.nextAttemptAt).toBeUndefined();
    expect(log[2]?.data).toMatchObject({ attempts: 1, status: 200 });
    expect(log[0]?.metadata).toMatchObject({
      tenantId: sub.tenantId,
      projectId: sub.projectId,
      correlationId: data.messageId,
    });
    const accepted = [];
    for await (const e of store.readStream(httpAsyncStream(data.messageId))) accepted.push(e.type);
    expect(accepted).toEqual(['HttpAsyncMessageAccepted']);

    // The next message of the conversation continues its session.
    const next = await submit(jobData(sub, 'And now?', { sessionKey: data.sessionKey }));
    await until(() => byEvent(sub.path, 'agent.response').length === 2);
    const second = agentResponsePayloadSchema.parse(byEvent(sub.path, 'agent.response')[1]?.body);
    expect(second).toMatchObject({
      message_id: next.messageId,
      session_id: sessionId,
      is_new_session: false,
    });
  });

  it('authenticates bearer subscriptions with Authorization only, and sends only the subscribed events', async () => {
    const token = 'tok_abcdefghijklmnop1234';
    const sub = await subscribe({ authMode: 'bearer', bearerToken: token, events: ['agent.response'] });
    await submit(jobData(sub, 'hi'));
    await until(() => at(sub.path).length === 1);
    await new Promise((r) => setTimeout(r, 300));
    const [only] = at(sub.path);
    expect(only?.headers['x-parley-event']).toBe('agent.response');
    expect(verifyCallbackBearer(only?.headers.authorization, token)).toBe(true);
    expect(only?.headers['x-parley-signature']).toBeUndefined();
    expect(only?.headers['x-parley-timestamp']).toBeUndefined();
  });

  it('fails a turn job whose data its schema refuses, and goes on with the next', async () => {
    const sub = await subscribe({ events: ['agent.response'] });
    // A sender of another version: no text, the route unknown.
    const badId = await boss.send(HTTP_ASYNC_TURN_QUEUE, {
      ...jobData(sub, 'x'),
      text: undefined,
      route: 'post',
    });
    await submit(jobData(sub, 'after the bad one'));
    await until(() => at(sub.path).length === 1);
    let bad: { state: string; output: unknown } | undefined;
    await until(async () => {
      const { rows } = await db.pool.query<{ state: string; output: unknown }>(
        'select state, output from pgboss.job where id = $1',
        [badId],
      );
      bad = rows[0];
      return bad !== undefined && bad.state !== 'created' && bad.state !== 'active';
    });
    expect(['retry', 'failed']).toContain(bad?.state);
    expect(JSON.stringify(bad?.output)).toMatch(
      /http-async-turn: .*text.*route|http-async-turn: .*route.*text/,
    );
  });

  it('retries a failed attempt with the same body, message_id and X-Parley-Delivery, and records each attempt', async () => {
    const sub = await subscribe({ events: ['agent.response'] });
    answers.set(sub.path, [500, 200]);
    const data = await submit(jobData(sub, 'retry me'));
    const deliveryId = httpAsyncDeliveryId(sub.id, data.messageId, 'agent.response');
    await until(() => finished(deliveryId));
    const calls = at(sub.path);
    expect(calls.map((c) => c.headers['x-parley-attempt'])).toEqual(['1', '2']);
    expect(calls.map((c) => c.headers['x-parley-delivery'])).toEqual([deliveryId, deliveryId]);
    expect(calls.map((c) => c.body.message_id)).toEqual([data.messageId, data.messageId]);
    expect(calls[1]?.raw).toBe(calls[0]?.raw);
    const log = await events(deliveryId);
    expect(log.map((e) => e.type)).toEqual([
      'HttpAsyncCallbackQueued',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackDelivered',
    ]);
    expect(log[1]?.data).toMatchObject({ attempt: 1, result: 'failed', status: 500, error: 'HTTP 500' });
    expect(Date.parse(String(log[1]?.data.nextAttemptAt))).toBeGreaterThan(
      Date.parse(String(log[1]?.data.attemptedAt)),
    );
    expect(log[2]?.data).toMatchObject({ attempt: 2, result: 'delivered', status: 200 });
    expect(log[3]?.data).toMatchObject({ attempts: 2, status: 200 });

    // The attempt job run again (a crash after its commit) sends nothing.
    const queued = log[0]?.data as unknown as HttpAsyncCallbackJobData;
    const again = await processHttpAsyncCallbackJob(deps, boss, {
      ...queued,
      attempt: 1,
      lastAttempt: 3,
      tenantId: sub.tenantId,
    });
    expect(again).toEqual({ outcome: 'already_attempted' });
    expect(at(sub.path)).toHaveLength(2);
  });

  it('dead-letters a callback when every attempt of the schedule fails', async () => {
    const sub = await subscribe({ events: ['agent.response'] });
    answers.set(sub.path, [503]);
    const data = await submit(jobData(sub, 'nobody home'));
    const deliveryId = httpAsyncDeliveryId(sub.id, data.messageId, 'agent.response');
    await until(() => finished(deliveryId));
    expect(at(sub.path).map((c) => c.headers['x-parley-attempt'])).toEqual(['1', '2', '3']);
    const log = await events(deliveryId);
    expect(log.map((e) => e.type)).toEqual([
      'HttpAsyncCallbackQueued',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackAttempted',
      'HttpAsyncCallbackDeadLettered',
    ]);
    expect(log[3]?.data.nextAttemptAt).toBeUndefined();
    expect(log[4]?.data).toMatchObject({
      reason: 'attempts_exhausted',
      attempts: 3,
      lastError: 'HTTP 503',
      lastStatus: 503,
    });
  });

  it('queues nothing for a deleted subscription, and dead-letters the callbacks of a paused one', async () => {
    const gone = await subscribe();
    await subscriptions.delete(gone.projectId, gone.id);
    const before = turns;
    const lost = jobData(gone, 'anyone?');
    expect(await processHttpAsyncTurnJob(deps, boss, lost)).toBe('answered');
    expect(turns).toBe(before + 1);
    expect(await typesOf(httpAsyncDeliveryId(gone.id, lost.messageId, 'agent.response'))).toEqual([]);

    const paused = await subscribe({ status: 'paused' });
    const data = await submit(jobData(paused, 'later'));
    const deliveryId = httpAsyncDeliveryId(paused.id, data.messageId, 'agent.response');
    await until(() => finished(deliveryId));
    const log = await events(deliveryId);
    expect(log.map((e) => e.type)).toEqual(['HttpAsyncCallbackQueued', 'HttpAsyncCallbackDeadLettered']);
    expect(log[1]?.data).toMatchObject({ reason: 'subscription_paused', attempts: 0 });
    expect(at(paused.path)).toHaveLength(0);

    // Deleted between queueing and delivery.
    const deleted = await subscribe();
    await subscriptions.delete(deleted.projectId, deleted.id);
    const outcome = await processHttpAsyncCallbackJob(deps, boss, {
      deliveryId: httpAsyncDeliveryId(deleted.id, 'ham_x', 'agent.response'),
      messageId: 'ham_x',
      subscriptionId: deleted.id,
      projectId: deleted.projectId,
      tenantId: deleted.tenantId,
      eventType: 'agent.response',
      payload: { message_id: 'ham_x' },
      test: false,
      attempt: 1,
      firstAttempt: 1,
      lastAttempt: 3,
    });
    expect(outcome).toEqual({ outcome: 'dead_lettered', reason: 'subscription_deleted' });
  });

  it('records a URL the guard refuses at delivery as a refused attempt', async () => {
    const sub = await subscribe({ events: ['agent.response'] });
    const publicOnly = createGuardedFetch({ allowlist: parseCallbackAllowlist(undefined) });
    const deliveryId = httpAsyncDeliveryId(sub.id, 'ham_refused', 'agent.response');
    const job: HttpAsyncCallbackJobData = {
      deliveryId,
      messageId: 'ham_refused',
      subscriptionId: sub.id,
      projectId: sub.projectId,
      tenantId: sub.tenantId,
      eventType: 'agent.response',
      payload: { message_id: 'ham_refused' },
      test: false,
      attempt: 1,
      firstAttempt: 1,
      lastAttempt: 2,
    };
    // Attempt 1 through a fetch whose guard refuses the receiver; the worker's own fetch (allowlisted) delivers attempt 2.
    const first = await processHttpAsyncCallbackJob({ ...deps, fetch: publicOnly }, boss, job);
    expect(first).toMatchObject({ outcome: 'retry', result: 'refused', error: 'refused: forbidden_address' });
    workers.wake();
    await until(() => finished(deliveryId));
    const log = await events(deliveryId);
    expect(log.map((e) => [e.type, e.data.result])).toEqual([
      ['HttpAsyncCallbackAttempted', 'refused'],
      ['HttpAsyncCallbackAttempted', 'delivered'],
      ['HttpAsyncCallbackDelivered', undefined],
    ]);
    expect(log[0]?.data.status).toBeUndefined();
    expect(JSON.stringify(log[0]?.data)).not.toContain('127.0.0.1');
    expect(at(sub.path)).toHaveLength(1);

    // Refused at the last attempt: dead-lettered with the refusal as its last error.
    const lastOnly = {
      ...job,
      deliveryId: httpAsyncDeliveryId(sub.id, 'ham_refused2', 'agent.response'),
      lastAttempt: 1,
    };
    const last = await processHttpAsyncCallbackJob({ ...deps, fetch: publicOnly }, boss, lastOnly);
    expect(last).toMatchObject({ outcome: 'dead_lettered', reason: 'attempts_exhausted', result: 'refused' });
    expect((await events(lastOnly.deliveryId)).at(-1)?.data).toMatchObject({
      reason: 'attempts_exhausted',
      attempts: 1,
      lastError: 'refused: forbidden_address',
    });
    publicOnly.close();
    expect(at(sub.path)).toHaveLength(1);
  });

  it('records a timeout and a refused connection as failed attempts, with short errors', async () => {
    const slow = await subscribe({ events: ['agent.response'] });
    answers.set(slow.path, [-1]);
    const job = (sub: Sub, messageId: string): HttpAsyncCallbackJobData => ({
      deliveryId: httpAsyncDeliveryId(sub.id, messageId, 'agent.response'),
      messageId,
      subscriptionId: sub.id,
      projectId: sub.projectId,
      tenantId: sub.tenantId,
      eventType: 'agent.response',
      payload: { message_id: messageId },
      test: false,
      attempt: 1,
      firstAttempt: 1,
      lastAttempt: 1,
    });
    const timedOut = await processHttpAsyncCallbackJob(
      { ...deps, callbackTimeoutMs: 200 },
      boss,
      job(slow, 'ham_slow'),
    );
    expect(timedOut).toEqual({
      outcome: 'dead_lettered',
      reason: 'attempts_exhausted',
      result: 'failed',
      error: 'timeout',
    });
    const [attempt] = await events(job(slow, 'ham_slow').deliveryId);
    expect(attempt?.data).toMatchObject({ result: 'failed', error: 'timeout' });
    expect(attempt?.data.status).toBeUndefined();
    expect(Number(attempt?.data.latencyMs)).toBeGreaterThanOrEqual(150);

    // Nothing listens on port 1.
    const closed = await subscribe({ events: ['agent.response'] });
    await subscriptions.update(closed.projectId, closed.id, { callbackUrl: 'http://127.0.0.1:1/hook' });
    const refused = await processHttpAsyncCallbackJob(deps, boss, job(closed, 'ham_closed'));
    expect(refused).toMatchObject({
      outcome: 'dead_lettered',
      result: 'failed',
      error: 'network: ECONNREFUSED',
    });
  });

  it('answers a turn that failed for good with outcome error and agent.status failed', async () => {
    const sub = await subscribe();
    const data = await submit(jobData(sub, 'break /error 500'));
    await until(() => at(sub.path).length === 3);
    const response = agentResponsePayloadSchema.parse(byEvent(sub.path, 'agent.response')[0]?.body);
    expect(response).toMatchObject({
      message_id: data.messageId,
      response: '',
      channel_output: { kind: 'text', text: '' },
      outcome: { status: 'error', usedFallback: false },
      session_id: null,
      is_new_session: false,
      response_metadata: {
        isLlmGenerated: false,
        responseProvenance: { kind: 'none', disclaimerRequired: false, usedLlmInternally: false },
      },
    });
    const failed = byEvent(sub.path, 'agent.status')
      .map((r) => agentStatusPayloadSchema.parse(r.body))
      .find((s) => s.status === 'failed');
    expect(failed).toMatchObject({
      previous_status: 'processing',
      reason: 'turn_failed',
      session_ended: false,
    });
    const row = await db.pool.query(
      'select processed_at from channel_inbound_messages where external_message_id = $1',
      [data.messageId],
    );
    expect(row.rows[0]?.processed_at).toBeInstanceOf(Date);
  });

  it('retries a turn that failed for another reason, and answers failed on the last try', async () => {
    const sub = await subscribe({ events: ['agent.status'] });
    const data = jobData(sub, 'flaky');
    const broken: HttpAsyncWorkerDeps = {
      ...deps,
      runTurn: async () => {
        throw new Error('database went away');
      },
    };
    await expect(
      processHttpAsyncTurnJob(broken, boss, data, { retryCount: 0, retryLimit: 3 }),
    ).rejects.toThrow('database went away');
    expect(await processHttpAsyncTurnJob(broken, boss, data, { retryCount: 3, retryLimit: 3 })).toBe(
      'failed',
    );
    workers.wake();
    await until(() => at(sub.path).length === 2);
    const statuses = at(sub.path).map((r) => agentStatusPayloadSchema.parse(r.body).status);
    expect(statuses.sort()).toEqual(['failed', 'processing']);
  });

  it('runs a turn job that runs twice once, with the same deliveries', async () => {
    const sub = await subscribe();
    const data = jobData(sub, 'once');
    const before = turns;
    expect(await processHttpAsyncTurnJob(deps, boss, data)).toBe('answered');
    expect(await processHttpAsyncTurnJob(deps, boss, data)).toBe('already_answered');
    expect(turns).toBe(before + 1);
    workers.wake();
    await until(() => at(sub.path).length === 3);
    await new Promise((r) => setTimeout(r, 600));
    expect(at(sub.path)).toHaveLength(3);
    for (const event of ['agent.response', 'agent.status'] as const) {
      for (const d of event === 'agent.status' ? ['processing', 'completed'] : ['']) {
        const types = await typesOf(httpAsyncDeliveryId(sub.id, data.messageId, event, d));
        expect(types.filter((t) => t === 'HttpAsyncCallbackQueued')).toHaveLength(1);
      }
    }
  });

  it('sends the earlier route its camelCase bodies', async () => {
    const sub = await subscribe();
    const data = await submit(jobData(sub, 'legacy', { route: 'send', metadata: { a: 1 } }));
    await until(() => at(sub.path).length === 3);
    const sessionId = await sessionOf(sub, data.sessionKey);
    const response = legacyResponsePayloadSchema.parse(byEvent(sub.path, 'agent.response')[0]?.body);
    expect(response).toEqual({
      eventType: 'agent.response',
      sessionId,
      messageId: data.messageId,
      text: expect.stringContaining('(scripted)'),
      metadata: { a: 1 },
    });
    const statuses = byEvent(sub.path, 'agent.status').map((r) => legacyStatusPayloadSchema.parse(r.body));
    expect(statuses.map((s) => s.status).sort()).toEqual(['completed', 'processing']);
    expect(statuses.find((s) => s.status === 'completed')).toEqual({
      eventType: 'agent.status',
      sessionId,
      messageId: data.messageId,
      status: 'completed',
      occurredAt: expect.any(String),
      metadata: { a: 1 },
    });
  });
});
