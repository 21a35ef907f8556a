import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  channelInboundMigrations,
  createChannelJobQueue,
  createHttpAsyncIntake,
  createKeyring,
  createSubscriptionStore,
  ensureHttpAsyncQueues,
  HTTP_ASYNC_TURN_QUEUE,
  httpAsyncEventId,
  httpAsyncMigrations,
  httpAsyncTurnJobId,
  type SubscriptionStore,
} from '@parley/channels';
import { httpAsyncStream, upcast } from '@parley/events';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
  type RecordedEvent,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { openApiProblems } from '@parley/http/testing';
import { type Logger, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

let db: TestDatabase;
let queueless: TestDatabase;
let auth: AuthStore;
let store: PostgresEventStore;
let subscriptions: SubscriptionStore;
let boss: PgBoss;
let queuelessBoss: PgBoss;
let app: FastifyInstance;
let unconfigured: FastifyInstance;
let limited: FastifyInstance;
let noQueue: FastifyInstance;
let tenantId: string;
let projectId: string;
let otherProjectId: string;
let submitKey: string;
let chatKey: string;
let otherKey: string;
let expiredKey: string;
let revokedKey: string;
let limitedKey: string;
let limitedProjectId: string;
let active: string;
const logLines: string[] = [];

const MESSAGE = '/api/v1/channels/http-async/message';
const SEND = '/api/v1/channels/http_async/send';

const newSubscription = async (project: string, status: 'active' | 'paused' = 'active') =>
  (
    await subscriptions.create(project, {
      displayName: 'Orders backend',
      callbackUrl: 'https://receiver.example/parley',
      events: ['agent.response'],
      status,
    })
  ).subscription.id;

const post = (
  url: string,
  payload: unknown,
  headers: Record<string, string> = { 'x-api-key': submitKey },
  on: FastifyInstance = app,
) => on.inject({ method: 'POST', url, headers, payload: payload as object });

const message = (extra: Record<string, unknown> = {}) => ({
  project_id: projectId,
  subscription_id: active,
  message: 'Where is my order?',
  session_key: `caller-${randomBytes(6).toString('hex')}`,
  ...extra,
});
const send = (extra: Record<string, unknown> = {}) => ({
  connectionId: active,
  message: 'Where is my order?',
  ...extra,
});

const eventsOf = async (messageId: string): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for await (const e of store.readStream(httpAsyncStream(messageId))) events.push(e);
  return events;
};

beforeAll(async () => {
  const migrations = [eventStoreMigrations, authMigrations, channelInboundMigrations, httpAsyncMigrations];
  db = await createTestDatabase(migrations);
  queueless = await createTestDatabase(migrations);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  auth = createAuthStore(db.pool);
  tenantId = (await auth.createTenant({ name: 'Acme' })).id;
  projectId = (await auth.createProject({ tenantId, slug: 'support' })).id;
  otherProjectId = (await auth.createProject({ tenantId, slug: 'sales' })).id;
  const key = async (project: string, scopes: string[]) =>
    auth.createApiKey({ projectId: project, name: 'k', scopes });
  submitKey = (await key(projectId, ['channels.http_async'])).key;
  chatKey = (await key(projectId, ['chat.write', 'channels.write'])).key;
  otherKey = (await key(otherProjectId, ['channels.http_async'])).key;
  const expired = await key(projectId, ['channels.http_async']);
  await db.pool.query(
    `update api_keys set created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' where id = $1`,
    [expired.record.id],
  );
  expiredKey = expired.key;
  const revoked = await key(projectId, ['channels.http_async']);
  await auth.revokeApiKey(revoked.record.id);
  revokedKey = revoked.key;
  // A tenant of its own, so the low limit counts only its requests.
  const limitedTenant = (await auth.createTenant({ name: 'Limited' })).id;
  const limitedProject = (await auth.createProject({ tenantId: limitedTenant, slug: 'limited' })).id;
  limitedKey = (await key(limitedProject, ['channels.http_async'])).key;
  limitedProjectId = limitedProject;

  subscriptions = createSubscriptionStore(db.pool, createKeyring(randomBytes(32)), {
    checkUrl: async (url) => ({ ok: true, url: new URL(url), addresses: ['93.184.215.14'] }),
  });
  active = await newSubscription(projectId);
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureHttpAsyncQueues(boss);
  // pg-boss's tables exist in the second database, the turn queue does not (the worker never ran).
  queuelessBoss = createChannelJobQueue(queueless.pool);
  await queuelessBoss.start();

  const verifyApiKey = (k: string) => auth.verifyApiKey(k);
  const intake = createHttpAsyncIntake({ pool: db.pool, store, subscriptions, boss });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  const common = {
    logger: pino({ level: 'debug' }, sink) as unknown as Logger,
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
  };
  app = await buildApp({ ...common, httpAsyncSubmit: { verifyApiKey, intake } });
  unconfigured = await buildApp({
    ...common,
    logger: silentLogger(),
    httpAsyncSubmit: { verifyApiKey, intake: null },
  });
  limited = await buildApp({
    ...common,
    logger: silentLogger(),
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 2, windowMs: 60_000 },
    httpAsyncSubmit: { verifyApiKey, intake },
  });
  const queuelessStore = createPostgresEventStore({
    pool: queueless.pool,
    connectionString: queueless.url,
    upcast,
  });
  const queuelessAuth = createAuthStore(queueless.pool);
  const qTenant = (await queuelessAuth.createTenant({ name: 'Q' })).id;
  const qProject = (await queuelessAuth.createProject({ tenantId: qTenant, slug: 'q' })).id;
  const qSubscriptions = createSubscriptionStore(queueless.pool, createKeyring(randomBytes(32)), {
    checkUrl: async (url) => ({ ok: true, url: new URL(url), addresses: ['93.184.215.14'] }),
  });
  const qSubscription = (
    await qSubscriptions.create(qProject, {
      displayName: 'Q',
      callbackUrl: 'https://receiver.example/q',
      events: ['agent.response'],
    })
  ).subscription.id;
  queuelessFixture = {
    key: (
      await queuelessAuth.createApiKey({ projectId: qProject, name: 'q', scopes: ['channels.http_async'] })
    ).key,
    projectId: qProject,
    subscriptionId: qSubscription,
    close: () => queuelessStore.close(),
  };
  noQueue = await buildApp({
    ...common,
    logger: silentLogger(),
    httpAsyncSubmit: {
      verifyApiKey: (k) => queuelessAuth.verifyApiKey(k),
      intake: createHttpAsyncIntake({
        pool: queueless.pool,
        store: queuelessStore,
        subscriptions: qSubscriptions,
        boss: queuelessBoss,
      }),
    },
  });
});
let queuelessFixture: { key: string; projectId: string; subscriptionId: string; close(): Promise<void> };

afterAll(async () => {
  for (const a of [app, unconfigured, limited, noQueue]) await a?.close();
  await boss?.stop({ graceful: false, timeout: 5_000 });
  await queuelessBoss?.stop({ graceful: false, timeout: 5_000 });
  await queuelessFixture?.close();
  await store?.close();
  await db?.close();
  await queueless?.close();
});

describe('POST /api/v1/channels/http-async/message', () => {
  it('202: queues the message; the answer, the inbound row, the turn job and the Accepted event agree', async () => {
    const metadata = { orderId: 'A-4711', nested: { vip: true, n: [1, 2] } };
    const res = await post(MESSAGE, message({ session_key: 'customer-42', metadata }));
    expect(res.statusCode).toBe(202);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      message_id: expect.stringMatching(/^ham_[0-9A-Za-z]{20}$/),
      session_key: expect.stringMatching(new RegExp(`^ha:${active}:[0-9A-Za-z]{22}$`)),
      status: 'accepted',
      _note: expect.stringContaining('Store session_key exactly'),
    });
    const { message_id: messageId, session_key: sessionKey } = body;

    const inbound = await db.pool.query(
      'select connection_id, external_message_id, external_session_key, job_id, processed_at from channel_inbound_messages where external_message_id = $1',
      [messageId],
    );
    const jobId = httpAsyncTurnJobId(active, messageId);
    expect(inbound.rows).toEqual([
      {
        connection_id: active,
        external_message_id: messageId,
        external_session_key: sessionKey,
        job_id: jobId,
        processed_at: null,
      },
    ]);
    const job = await boss.getJobById(HTTP_ASYNC_TURN_QUEUE, jobId);
    expect(job?.data).toEqual({
      messageId,
      subscriptionId: active,
      projectId,
      tenantId,
      route: 'message',
      sessionKey,
      newConversation: true,
      text: 'Where is my order?',
      metadata,
      acceptedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    const events = await eventsOf(messageId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventId: httpAsyncEventId('accepted', messageId, 0),
      type: 'HttpAsyncMessageAccepted',
      data: {
        messageId,
        projectId,
        subscriptionId: active,
        route: 'message',
        sessionKey,
        newConversation: true,
        text: 'Where is my order?',
        metadata,
        acceptedAt: (job?.data as { acceptedAt: string } | undefined)?.acceptedAt,
      },
      metadata: { tenantId, projectId, correlationId: messageId },
    });

    // The canonical key continues the conversation.
    const next = await post(MESSAGE, message({ session_key: sessionKey, message: 'And the invoice?' }));
    expect(next.statusCode).toBe(202);
    expect(next.json().session_key).toBe(sessionKey);
    expect(next.json().message_id).not.toBe(messageId);
    const nextJob = await boss.getJobById(
      HTTP_ASYNC_TURN_QUEUE,
      httpAsyncTurnJobId(active, next.json().message_id),
    );
    expect(nextJob?.data).toMatchObject({ newConversation: false, sessionKey, metadata: {} });
    // Logged by ids; the text and the metadata are not.
    const log = logLines.join('');
    expect(log).toContain(`"messageId":"${messageId}"`);
    expect(log).not.toContain('Where is my order?');
    expect(log).not.toContain('A-4711');
  });

  it('400 API_KEY_IN_BODY: a key in the body is refused before anything else, and never logged', async () => {
    const secret = submitKey;
    for (const field of ['api_key', 'apiKey', 'x_api_key', 'X-API-Key', 'key', 'token']) {
      const res = await post(MESSAGE, { [field]: secret }, {});
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error.code, field).toBe('API_KEY_IN_BODY');
      expect(res.json().error.message).toContain('X-API-Key');
      expect(res.body).not.toContain(secret);
    }
    // Even with a valid header, and hidden in metadata.
    const hidden = await post(MESSAGE, message({ metadata: { auth: { value: secret } } }));
    expect(hidden.statusCode).toBe(400);
    expect(hidden.json().error.code).toBe('API_KEY_IN_BODY');
    const inText = await post(MESSAGE, message({ message: `my key is ${secret}, help` }));
    expect(inText.json().error.code).toBe('API_KEY_IN_BODY');
    // Text that merely mentions the prefix is a message like any other.
    expect((await post(MESSAGE, message({ message: 'plat_form shoes, size 40' }))).statusCode).toBe(202);
    expect(logLines.join('')).not.toContain(secret);
  });

  it('400 VALIDATION_ERROR: fields, sizes, and a session_key that cannot be stored', async () => {
    const bad: Array<Record<string, unknown>> = [
      message({ message: '' }),
      message({ message: 'x'.repeat(32_001) }),
      message({ message: 42 }),
      message({ session_key: '' }),
      message({ session_key: 'k'.repeat(257) }),
      message({ session_key: 'line\nbreak' }),
      message({ metadata: ['not', 'an', 'object'] }),
      message({ metadata: { blob: 'x'.repeat(16 * 1024) } }),
      message({ session_id: 'ses_1' }),
      { subscription_id: active, message: 'hi', session_key: 'k' },
      { project_id: projectId, message: 'hi', session_key: 'k' },
      { project_id: projectId, subscription_id: active, session_key: 'k' },
    ];
    for (const payload of bad) {
      const res = await post(MESSAGE, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    // The longest message and metadata just under the limit are fine.
    const edge = await post(
      MESSAGE,
      message({ message: 'x'.repeat(32_000), metadata: { blob: 'x'.repeat(16 * 1024 - 11) } }),
    );
    expect(edge.statusCode).toBe(202);
  });

  it('400 SESSION_KEY_UNKNOWN: a canonical-looking key not issued for this subscription', async () => {
    const other = await newSubscription(projectId);
    const issued = (await post(MESSAGE, message({ subscription_id: other }))).json().session_key;
    for (const sessionKey of [issued, `ha:${active}:AAAAAAAAAAAAAAAAAAAAAA`]) {
      const res = await post(MESSAGE, message({ session_key: sessionKey }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: {
          code: 'SESSION_KEY_UNKNOWN',
          message: expect.stringContaining(
            'send the session_key exactly as returned in the acknowledgement; do not build it',
          ),
        },
      });
    }
  });

  it('401: missing, invalid, expired or revoked key, and a key sent as Authorization bearer', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { 'x-api-key': 'plat_not-a-real-key' },
      { 'x-api-key': 'garbage' },
      { 'x-api-key': expiredKey },
      { 'x-api-key': revokedKey },
    ]) {
      const res = await post(MESSAGE, message(), headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual({ error: 'Missing or invalid API key', requestId: expect.any(String) });
    }
    for (const headers of [
      { authorization: `Bearer ${submitKey}` } as Record<string, string>,
      { authorization: `Bearer ${submitKey}`, 'x-api-key': submitKey },
    ]) {
      const res = await post(MESSAGE, message(), headers);
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toContain('X-API-Key');
    }
  });

  it('403: a key of another project, an under-scoped key, a credential of another type', async () => {
    const mismatch = await post(MESSAGE, message(), { 'x-api-key': otherKey });
    expect(mismatch.statusCode).toBe(403);
    expect(mismatch.json().error.code).toBe('PROJECT_MISMATCH');
    const scoped = await post(MESSAGE, message(), { 'x-api-key': chatKey });
    expect(scoped.statusCode).toBe(403);
    expect(scoped.json()).toEqual({
      success: false,
      error: { code: 'PERMISSION_REQUIRED', message: expect.any(String) },
      required: 'http_async:submit',
    });
    const publicKey = await post(MESSAGE, message(), { 'x-api-key': 'pk_live_abc' });
    expect(publicKey.statusCode).toBe(403);
    expect(publicKey.json().error.code).toBe('PLATFORM_API_KEY_REQUIRED');
  });

  it('404 SUBSCRIPTION_NOT_FOUND: unknown, deleted, or another project’s (which the key cannot tell apart)', async () => {
    const theirs = await newSubscription(otherProjectId);
    const deleted = await newSubscription(projectId);
    await subscriptions.delete(projectId, deleted);
    const answers = [];
    for (const id of ['sub_0000000000000000', deleted, theirs]) {
      const res = await post(MESSAGE, message({ subscription_id: id }));
      expect(res.statusCode).toBe(404);
      answers.push(res.json().error.code);
    }
    expect(answers).toEqual(['SUBSCRIPTION_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND', 'SUBSCRIPTION_NOT_FOUND']);
  });

  it('409 SUBSCRIPTION_PAUSED and 409 SESSION_KEY_IN_USE (with the canonical key)', async () => {
    const paused = await newSubscription(projectId, 'paused');
    const res = await post(MESSAGE, message({ subscription_id: paused }));
    expect(res.statusCode).toBe(409);
    expect(res.json().error.code).toBe('SUBSCRIPTION_PAUSED');

    const first = await post(MESSAGE, message({ session_key: 'reused-key' }));
    const again = await post(MESSAGE, message({ session_key: 'reused-key' }));
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      success: false,
      error: {
        code: 'SESSION_KEY_IN_USE',
        message: expect.stringContaining('canonical session_key'),
        details: { session_key: first.json().session_key },
      },
    });
  });

  it('429 when the tenant exceeds its rate, with Retry-After', async () => {
    const payload = message({ project_id: limitedProjectId, subscription_id: 'sub_0000000000000000' });
    const codes = [];
    for (let i = 0; i < 3; i++)
      codes.push((await post(MESSAGE, payload, { 'x-api-key': limitedKey }, limited)).statusCode);
    expect(codes).toEqual([404, 404, 429]);
    const res = await post(MESSAGE, payload, { 'x-api-key': limitedKey }, limited);
    expect(res.json()).toEqual({ error: 'Too many requests', retryAfterMs: expect.any(Number) });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('503: CHANNELS_NOT_CONFIGURED without CHANNEL_CREDENTIALS_KEY, QUEUE_UNAVAILABLE without the turn queue', async () => {
    const unset = await post(MESSAGE, message(), { 'x-api-key': submitKey }, unconfigured);
    expect(unset.statusCode).toBe(503);
    expect(unset.json().error.code).toBe('CHANNELS_NOT_CONFIGURED');
    const q = queuelessFixture;
    const res = await post(
      MESSAGE,
      message({ project_id: q.projectId, subscription_id: q.subscriptionId, session_key: 'first' }),
      { 'x-api-key': q.key },
      noQueue,
    );
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('QUEUE_UNAVAILABLE');
    const rows = await queueless.pool.query('select count(*) as n from http_async_conversations');
    expect(Number(rows.rows[0].n)).toBe(0);
  });
});

describe('POST /api/v1/channels/http_async/send (earlier shape)', () => {
  it('202: a new conversation per message without sessionId; the sessionId of a callback continues one', async () => {
    const res = await post(SEND, send({ metadata: { ticket: 7 } }));
    expect(res.statusCode).toBe(202);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      success: true,
      messageId: expect.stringMatching(/^ham_[0-9A-Za-z]{20}$/),
      sessionId: null,
      status: 'accepted',
    });
    const inbound = await db.pool.query(
      'select external_session_key, job_id from channel_inbound_messages where connection_id = $1 and external_message_id = $2',
      [active, body.messageId],
    );
    const sessionKey = inbound.rows[0].external_session_key as string;
    expect(sessionKey).toMatch(new RegExp(`^ha:${active}:`));
    expect(inbound.rows[0].job_id).toBe(httpAsyncTurnJobId(active, body.messageId));
    const job = await boss.getJobById(HTTP_ASYNC_TURN_QUEUE, httpAsyncTurnJobId(active, body.messageId));
    expect(job?.data).toMatchObject({
      messageId: body.messageId,
      route: 'send',
      sessionKey,
      newConversation: true,
      text: 'Where is my order?',
      metadata: { ticket: 7 },
      tenantId,
      projectId,
      subscriptionId: active,
    });
    expect((await eventsOf(body.messageId))[0]).toMatchObject({
      type: 'HttpAsyncMessageAccepted',
      data: { route: 'send', sessionKey, newConversation: true, metadata: { ticket: 7 } },
      metadata: { tenantId, projectId, correlationId: body.messageId },
    });

    // The worker maps the conversation to its runtime session after the first turn.
    await db.pool.query(
      'insert into channel_sessions (connection_id, external_session_key, session_id) values ($1, $2, $3)',
      [active, sessionKey, 'ses_legacy_http'],
    );
    const next = await post(SEND, send({ sessionId: 'ses_legacy_http' }));
    expect(next.statusCode).toBe(202);
    expect(next.json()).toMatchObject({ success: true, sessionId: 'ses_legacy_http', status: 'accepted' });
    const nextJob = await boss.getJobById(
      HTTP_ASYNC_TURN_QUEUE,
      httpAsyncTurnJobId(active, next.json().messageId),
    );
    expect(nextJob?.data).toMatchObject({ sessionKey, newConversation: false, route: 'send' });
  });

  it('400: API_KEY_IN_BODY, VALIDATION_ERROR, SESSION_ID_UNKNOWN', async () => {
    const inBody = await post(SEND, { ...send(), apiKey: submitKey }, {});
    expect(inBody.json().error.code).toBe('API_KEY_IN_BODY');
    for (const payload of [
      send({ message: '' }),
      send({ connectionId: undefined }),
      send({ session_key: 'k' }),
    ]) {
      const res = await post(SEND, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION_ERROR');
    }
    const unknown = await post(SEND, send({ sessionId: 'ses_never' }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('SESSION_ID_UNKNOWN');
  });

  it('401, 403, 404, 409, 429 and 503 as on the message route', async () => {
    expect((await post(SEND, send(), {})).statusCode).toBe(401);
    const bearer = await post(SEND, send(), { authorization: `Bearer ${submitKey}` });
    expect(bearer.statusCode).toBe(401);
    expect(bearer.json().error).toContain('X-API-Key');
    expect((await post(SEND, send(), { 'x-api-key': revokedKey })).statusCode).toBe(401);
    const scoped = await post(SEND, send(), { 'x-api-key': chatKey });
    expect([scoped.statusCode, scoped.json().error.code]).toEqual([403, 'PERMISSION_REQUIRED']);
    // No project in the body: the key's project decides, so another project's subscription is not found.
    const other = await post(SEND, send(), { 'x-api-key': otherKey });
    expect([other.statusCode, other.json().error.code]).toEqual([404, 'SUBSCRIPTION_NOT_FOUND']);
    const paused = await newSubscription(projectId, 'paused');
    const p = await post(SEND, send({ connectionId: paused }));
    expect([p.statusCode, p.json().error.code]).toEqual([409, 'SUBSCRIPTION_PAUSED']);
    const codes = [];
    for (let i = 0; i < 3; i++)
      codes.push(
        (
          await post(
            SEND,
            send({ connectionId: 'sub_0000000000000000' }),
            { 'x-api-key': limitedKey },
            limited,
          )
        ).statusCode,
      );
    expect(codes.at(-1)).toBe(429);
    const unset = await post(SEND, send(), { 'x-api-key': submitKey }, unconfigured);
    expect([unset.statusCode, unset.json().error.code]).toEqual([503, 'CHANNELS_NOT_CONFIGURED']);
    const q = queuelessFixture;
    const res = await post(
      SEND,
      { connectionId: q.subscriptionId, message: 'hi' },
      { 'x-api-key': q.key },
      noQueue,
    );
    expect([res.statusCode, res.json().error.code]).toEqual([503, 'QUEUE_UNAVAILABLE']);
  });
});

describe('OpenAPI', () => {
  it('documents both submit routes in a valid OpenAPI 3.1 document', async () => {
    const document = (await app.inject('/openapi.json')).json();
    expect(
      openApiProblems(document, [
        { method: 'POST', url: MESSAGE },
        { method: 'POST', url: SEND },
      ]),
    ).toEqual([]);
    const op = document.paths[MESSAGE].post;
    expect(op.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(op.responses).sort()).toEqual([
      '202',
      '400',
      '401',
      '403',
      '404',
      '409',
      '429',
      '431',
      '503',
    ]);
    expect(JSON.stringify(op.responses['409'])).toContain('session_key');
  });
});
