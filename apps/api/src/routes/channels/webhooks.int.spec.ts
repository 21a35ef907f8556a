import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  type ConnectionStore,
  channelInboundMigrations,
  channelsMigrations,
  createChannelJobQueue,
  createConnectionStore,
  createInboundPipeline,
  createKeyring,
  workChannelQueues,
} from '@parley/channels';
import { LOOPBACK_API_BASE_URLS } from '@parley/channels/testing';
import { sessionStream, upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createPriceCards, createProviderRegistry, createRuntime, runtimeMigrations } from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import {
  FAKE_CHANNEL,
  fakeAdapter,
  type PlatformStandIn,
  signBody,
  startPlatformStandIn,
} from '../../testing/channels/fakeChannel.js';

const SECRET = 'fake-webhook-secret';
const SEND_RETRY_LIMIT = 2;

let db: TestDatabase;
let store: PostgresEventStore;
let auth: AuthStore;
let connections: ConnectionStore;
let app: FastifyInstance;
let apiBoss: PgBoss;
let workerBoss: PgBoss;
let platform: PlatformStandIn;
let projectId: string;
let connectionId: string;
const BOT = 'bot-4711';

beforeAll(async () => {
  db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelsMigrations,
    channelInboundMigrations,
  ]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  auth = createAuthStore(db.pool);
  connections = createConnectionStore(db.pool, createKeyring(randomBytes(32)), {
    apiBaseUrl: LOOPBACK_API_BASE_URLS,
  });
  platform = await startPlatformStandIn();
  const tenant = await auth.createTenant({ name: 'Acme' });
  projectId = (await auth.createProject({ tenantId: tenant.id, slug: 'channels' })).id;
  connectionId = (
    await connections.create(projectId, {
      channelType: FAKE_CHANNEL,
      externalIdentifier: BOT,
      credentials: { accessToken: 'bot-token-1', appSecret: SECRET, verifyToken: 'verify-me' },
      settings: { apiBaseUrl: platform.url },
    })
  ).id;
  const adapters = new Map([[FAKE_CHANNEL, fakeAdapter]]);
  const runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });

  // The worker: its own started pg-boss (creates the schema and the queues).
  workerBoss = createChannelJobQueue(db.pool);
  await workerBoss.start();
  await workChannelQueues(
    workerBoss,
    {
      pool: db.pool,
      store,
      adapters,
      connections,
      runTurn: (req) => runtime.runTurn(req),
      logger: silentLogger(),
    },
    {
      sendRetryLimit: SEND_RETRY_LIMIT,
      sendRetryDelaySeconds: 1,
      inboundRetryLimit: 1,
      expireInSeconds: 60,
      pollingIntervalSeconds: 0.5,
    },
  );

  // The API: a pg-boss that is never started, only sends inside the webhook's transaction.
  apiBoss = createChannelJobQueue(db.pool);
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000 },
    channelWebhooks: {
      pipeline: createInboundPipeline({
        pool: db.pool,
        boss: apiBoss,
        adapters,
        connections,
        logger: silentLogger(),
      }),
      publicBaseUrl: 'https://parley.example.com',
    },
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await workerBoss?.stop({ graceful: true, timeout: 10_000 });
  await platform?.close();
  await store?.close();
  await db?.close();
});

function post(body: object, options: { path?: string; signature?: string } = {}) {
  const raw = JSON.stringify(body);
  return app.inject({
    method: 'POST',
    url: options.path ?? `/api/v1/channels/${FAKE_CHANNEL}/webhook/${BOT}`,
    headers: {
      'content-type': 'application/json',
      'x-fake-signature': options.signature ?? signBody(SECRET, raw),
    },
    payload: raw,
  });
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function streamTypes(sessionId: string): Promise<string[]> {
  const types: string[] = [];
  for await (const e of store.readStream(sessionStream(sessionId))) types.push(e.type);
  return types;
}

async function sessionOf(chat: string): Promise<string | undefined> {
  const { rows } = await db.pool.query<{ session_id: string }>(
    'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
    [connectionId, chat],
  );
  return rows[0]?.session_id;
}

const sendsTo = (chat: string) =>
  platform.requests.filter((r) => r.path.endsWith('/sendMessage') && r.body.chat_id === chat);

describe('inbound webhooks', () => {
  it('answers the same webhook delivered twice and concurrently with one turn and one reply', async () => {
    const body = { messages: [{ id: 'm-1', chat: 'chat-a', text: 'hello there', from: 'user-9' }] };
    const first = await post(body);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
    const again = await Promise.all(Array.from({ length: 6 }, () => post(body)));
    expect(again.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(again.map((r) => r.json().data.accepted)).toEqual([0, 0, 0, 0, 0, 0]);

    const sessionId = await until(() => sessionOf('chat-a'), 'the session');
    await until(
      async () => ((await streamTypes(sessionId)).includes('ChannelMessageSent') ? true : undefined),
      'the send',
    );
    // Every job settled: a duplicate, were there one, has run by now.
    await until(
      async () =>
        (
          await db.pool.query(
            `select 1 from pgboss.job where name like 'channel-%' and state in ('created', 'retry', 'active')`,
          )
        ).rowCount === 0 || undefined,
      'the channel jobs to settle',
    );
    const types = await streamTypes(sessionId);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(1);
    expect(types.filter((t) => t === 'AgentReplied')).toHaveLength(1);
    expect(types.filter((t) => t === 'ChannelMessageSent')).toHaveLength(1);
    expect(types.indexOf('ChannelMessageSent')).toBeGreaterThan(types.indexOf('AgentReplied'));
    expect(sendsTo('chat-a')).toHaveLength(1);
    expect(sendsTo('chat-a')[0]?.body.output).toMatchObject({ text: expect.any(String) });
    expect(
      platform.requests.some((r) => r.path.endsWith('/sendChatAction') && r.body.chat_id === 'chat-a'),
    ).toBe(true);

    const events = [];
    for await (const e of store.readStream(sessionStream(sessionId))) events.push(e);
    const started = events.find((e) => e.type === 'SessionStarted');
    expect(started?.data).toMatchObject({
      channel: FAKE_CHANNEL,
      channelType: FAKE_CHANNEL,
      channelUserId: 'user-9',
    });
    const sent = events.find((e) => e.type === 'ChannelMessageSent');
    const replied = events.find((e) => e.type === 'AgentReplied');
    expect(sent?.data).toMatchObject({
      connectionId,
      channelType: FAKE_CHANNEL,
      messageId: (replied?.data as { messageId?: string } | undefined)?.messageId,
      attempts: 1,
      externalMessageId: expect.any(String),
    });
  });

  it('resumes the conversation’s session for the next message in the same chat', async () => {
    const sessionId = await until(() => sessionOf('chat-a'), 'the session');
    const res = await post({ messages: [{ id: 'm-2', chat: 'chat-a', text: 'and again' }] });
    expect(res.json().data.accepted).toBe(1);
    await until(async () => (sendsTo('chat-a').length === 2 ? true : undefined), 'the second send');
    expect(await sessionOf('chat-a')).toBe(sessionId);
    const types = await streamTypes(sessionId);
    expect(types.filter((t) => t === 'MessageReceived')).toHaveLength(2);
    expect(types.filter((t) => t === 'SessionStarted')).toHaveLength(1);
  });

  it('refuses a badly signed request with 401 and records nothing', async () => {
    // Counted by what the forged message would leave: the earlier tests' replies may still be settling.
    const traces = async () => ({
      events: await db.pool.query(`select 1 from events where data::text like '%chat-bad%'`),
      jobs: await db.pool.query(`select 1 from pgboss.job where data::text like '%chat-bad%'`),
    });
    const res = await post(
      { messages: [{ id: 'm-bad', chat: 'chat-bad', text: 'forged' }] },
      { signature: signBody('wrong-secret', 'x') },
    );
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    const unsigned = await app.inject({
      method: 'POST',
      url: `/api/v1/channels/${FAKE_CHANNEL}/webhook/${BOT}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ messages: [{ id: 'm-bad', chat: 'chat-bad', text: 'forged' }] }),
    });
    expect(unsigned.statusCode).toBe(401);
    const rows = await db.pool.query(
      'select 1 from channel_inbound_messages where external_message_id = $1',
      ['m-bad'],
    );
    expect(rows.rowCount).toBe(0);
    const left = await traces();
    expect([left.events.rowCount, left.jobs.rowCount]).toEqual([0, 0]);
  });

  it('retries a failing send with backoff, then records ChannelSendFailed and counts the failure', async () => {
    platform.failChats.set('chat-f', 503);
    const res = await post({ messages: [{ id: 'm-f', chat: 'chat-f', text: 'will not arrive' }] });
    expect(res.json().data.accepted).toBe(1);
    const sessionId = await until(() => sessionOf('chat-f'), 'the session');
    await until(
      async () => ((await streamTypes(sessionId)).includes('ChannelSendFailed') ? true : undefined),
      'the failure event',
      30_000,
    );
    expect(sendsTo('chat-f')).toHaveLength(SEND_RETRY_LIMIT + 1);
    const events = [];
    for await (const e of store.readStream(sessionStream(sessionId))) events.push(e);
    expect(events.filter((e) => e.type === 'ChannelMessageSent')).toHaveLength(0);
    expect(events.find((e) => e.type === 'ChannelSendFailed')?.data).toMatchObject({
      connectionId,
      attempts: SEND_RETRY_LIMIT + 1,
      error: 'HTTP 503',
      status: 503,
      retryable: true,
    });
    expect((await connections.get(projectId, connectionId))?.consecutiveFailures).toBe(1);
  }, 40_000);

  it('routes the generic, provider, hooks and slash shapes, and filters bot messages', async () => {
    const generic = await post(
      {
        bot: BOT,
        messages: [
          { id: 'm-g', chat: 'chat-g', text: 'generic' },
          { id: 'm-b', chat: 'chat-g', text: 'x', isBot: true },
        ],
      },
      { path: `/api/v1/channels/${FAKE_CHANNEL}/webhook` },
    );
    expect(generic.json()).toEqual({ success: true, data: { accepted: 1, duplicates: 0 } });
    const provider = await post(
      { bot: BOT, messages: [{ id: 'm-p', chat: 'chat-g', text: 'provider' }] },
      { path: `/api/v1/channels/${FAKE_CHANNEL}/cloud/webhook` },
    );
    expect(provider.json().data.accepted).toBe(1);
    const hooks = await post(
      { messages: [{ id: 'm-h', chat: 'chat-g', text: 'hooks' }] },
      { path: `/api/v1/channels/${FAKE_CHANNEL}/hooks/${BOT}` },
    );
    expect(hooks.json().data.accepted).toBe(1);
    const slash = await post(
      { messages: [{ id: 'm-s', chat: 'chat-g', text: '/help' }] },
      { path: `/api/v1/channels/${FAKE_CHANNEL}/slash/${BOT}` },
    );
    expect(slash.json().data.accepted).toBe(1);
    const noIdentifier = await post({ messages: [] }, { path: `/api/v1/channels/${FAKE_CHANNEL}/webhook` });
    expect(noIdentifier.statusCode).toBe(400);
    expect(
      (await post({ messages: [] }, { path: `/api/v1/channels/${FAKE_CHANNEL}/webhook/nobody` })).statusCode,
    ).toBe(404);
    expect(
      (await post({ messages: [] }, { path: '/api/v1/channels/no-such-type/webhook/x' })).statusCode,
    ).toBe(404);
  });

  it('answers the GET verification challenge through the hashed verify-token lookup', async () => {
    const ok = await app.inject({
      method: 'GET',
      url: `/api/v1/channels/${FAKE_CHANNEL}/webhook?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=12345`,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.body).toBe('12345');
    const wrong = await app.inject({
      method: 'GET',
      url: `/api/v1/channels/${FAKE_CHANNEL}/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`,
    });
    expect(wrong.statusCode).toBe(403);
    const none = await app.inject({ method: 'GET', url: `/api/v1/channels/${FAKE_CHANNEL}/webhook` });
    expect(none.statusCode).toBe(404);
  });

  it('queues nothing for an inactive connection', async () => {
    await connections.update(projectId, connectionId, { active: false });
    try {
      const res = await post({ messages: [{ id: 'm-i', chat: 'chat-i', text: 'hello?' }] });
      expect(res.json()).toEqual({
        success: true,
        data: { accepted: 0, duplicates: 0, ignored: 'connection_inactive' },
      });
    } finally {
      await connections.update(projectId, connectionId, { active: true });
    }
  });
});
