import { randomBytes } from 'node:crypto';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  type ChannelConnection,
  channelInboundMigrations,
  channelsMigrations,
  createChannelAdapters,
  createChannelJobQueue,
  createConnectionStore,
  createInboundPipeline,
  createKeyring,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  type InboundPipeline,
  type NormalizedMessage,
  type ResolvedConnection,
} from '@parley/channels';
import { LOOPBACK_API_BASE_URLS, startStandIn } from '@parley/channels/testing';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
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
import { channelWorkersIdle } from '../testing/idleWorkers.js';
import { type ChannelsWork, createChannelsWork } from './channelsWork.js';

/**
 * The worker's channel queues as deployed (createChannelsWork): pg-boss polls every 10 s here, far
 * longer than any wait below, so every reply that arrives in time proves the worker did not wait
 * for a poll: a worker that found a job fetches the next at once, a turn's reply is sent at once,
 * and a job the API queues (NOTIFY in its transaction) wakes the idle workers through LISTEN.
 */

const POLL_SECONDS = 10;
let db: TestDatabase;
let store: PostgresEventStore;
let runtime: Runtime;
let pipeline: InboundPipeline;
let apiBoss: PgBoss;
let work: ChannelsWork;
let connection: ResolvedConnection;
const platform = await startStandIn((r) => ({
  status: 200,
  body: r.path.endsWith('/sendMessage')
    ? { ok: true, result: { message_id: 1 } }
    : { ok: true, result: true },
}));
const BOT_ID = '7000777';

beforeAll(async () => {
  db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelsMigrations,
    channelInboundMigrations,
  ]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'Acme' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'workers' });
  const connections = createConnectionStore(db.pool, createKeyring(randomBytes(32)), {
    apiBaseUrl: LOOPBACK_API_BASE_URLS,
  });
  const created: ChannelConnection = await connections.create(project.id, {
    channelType: 'telegram',
    externalIdentifier: BOT_ID,
    credentials: { botToken: `${BOT_ID}:AAE-work`, webhookSecret: 'work-secret' },
    settings: { apiBaseUrl: platform.baseUrl },
  });
  connection = (await connections.resolveById(created.id))!;
  runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const adapters = createChannelAdapters();
  apiBoss = createChannelJobQueue(db.pool);
  // The queues exist before the workers start (a backlog is waiting for them).
  await apiBoss.start();
  await ensureChannelQueues(apiBoss, DEFAULT_CHANNEL_QUEUE_OPTIONS);
  await apiBoss.stop({ graceful: false });
  pipeline = createInboundPipeline({
    pool: db.pool,
    boss: apiBoss,
    adapters,
    connections,
    logger: silentLogger(),
  });
  work = createChannelsWork(
    { pool: db.pool, store, logger: silentLogger() },
    {
      adapters,
      connections,
      runTurn: (req) => runtime.runTurn(req),
      pollingIntervalSeconds: POLL_SECONDS,
      teamSize: 1,
      connectionString: db.url,
    },
  );
}, 60_000);
afterAll(async () => {
  await work?.stop();
  await platform.close();
  await store?.close();
  await db?.close();
});

let seq = 0;
const message = (chat: number): NormalizedMessage => {
  seq += 1;
  return {
    externalMessageId: `${chat}:${seq}`,
    externalSessionKey: String(chat),
    text: `message ${seq}`,
    metadata: { chatId: chat },
    timestamp: new Date().toISOString(),
  };
};
const replies = () => platform.requests.filter((r) => r.path.endsWith('/sendMessage')).length;
async function until(predicate: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return predicate();
}

describe('channel workers', () => {
  it('answer a backlog without waiting for a poll between jobs', async () => {
    for (let chat = 1; chat <= 5; chat++) await pipeline.deliver(connection, [message(800 + chat)]);
    const started = Date.now();
    await work.start();
    // Five turns and five sends by one worker of each queue: 10 polls apart would take 90 s.
    expect(await until(() => replies() === 5, 8_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(POLL_SECONDS * 1000);
  });

  it('wake at once when a webhook queues a message, through LISTEN', async () => {
    // The workers found the queues empty and sleep until their next poll, 10 s away.
    await channelWorkersIdle(db.pool);
    const before = replies();
    const started = Date.now();
    await pipeline.deliver(connection, [message(900)]);
    expect(await until(() => replies() === before + 1, 4_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(POLL_SECONDS * 1000);
  });
});
