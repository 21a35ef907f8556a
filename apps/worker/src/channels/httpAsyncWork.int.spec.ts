import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  agentResponsePayloadSchema,
  channelInboundMigrations,
  channelsMigrations,
  checkCallbackUrl,
  createChannelAdapters,
  createChannelJobQueue,
  createConnectionStore,
  createGuardedFetch,
  createKeyring,
  createSubscriptionStore,
  type GuardedFetch,
  HTTP_ASYNC_TURN_QUEUE,
  type HttpAsyncTurnJobData,
  httpAsyncMigrations,
  httpAsyncTurnJobId,
  newCanonicalSessionKey,
  newHttpAsyncMessageId,
  notifyChannelJob,
  parseCallbackAllowlist,
  verifyCallbackSignature,
} from '@parley/channels';
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
 * The worker's HTTP async queues as deployed (createChannelsWork with `httpAsync`): pg-boss polls
 * every 10 s here, so a callback that arrives well before proves the submit's NOTIFY woke the turn
 * worker through LISTEN and the turn woke the callback worker.
 */

const POLL_SECONDS = 10;
const allowlist = parseCallbackAllowlist('127.0.0.1/32');
let db: TestDatabase;
let store: PostgresEventStore;
let runtime: Runtime;
let work: ChannelsWork;
let apiBoss: PgBoss;
let guarded: GuardedFetch;
let receiver: Server;
const keyring = createKeyring(randomBytes(32));
const received: { headers: IncomingHttpHeaders; raw: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelsMigrations,
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
  guarded = createGuardedFetch({ allowlist });
  work = createChannelsWork(
    { pool: db.pool, store, logger: silentLogger() },
    {
      adapters: createChannelAdapters(),
      connections: createConnectionStore(db.pool, keyring),
      runTurn: (req) => runtime.runTurn(req),
      pollingIntervalSeconds: POLL_SECONDS,
      teamSize: 1,
      connectionString: db.url,
      httpAsync: {
        subscriptions: createSubscriptionStore(db.pool, keyring, {
          checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
        }),
        fetch: guarded,
        retryScheduleSeconds: [1],
      },
    },
  );
  apiBoss = createChannelJobQueue(db.pool);
}, 60_000);

afterAll(async () => {
  await work?.stop();
  guarded?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await store?.close();
  await db?.close();
});

describe('HTTP async workers', () => {
  it('create their queues, wake through LISTEN and deliver the callback without waiting for a poll', async () => {
    await work.start();
    // The workers found the queues empty and sleep until their next poll, 10 s away.
    await channelWorkersIdle(db.pool);
    const subscriptions = createSubscriptionStore(db.pool, keyring, {
      checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
    });
    const auth = createAuthStore(db.pool);
    const tenant = await auth.createTenant({ name: 'Acme' });
    const project = await auth.createProject({ tenantId: tenant.id, slug: 'http-async-work' });
    const { subscription, secret } = await subscriptions.create(project.id, {
      displayName: 'receiver',
      callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ['agent.response'],
    });
    const data: HttpAsyncTurnJobData = {
      messageId: newHttpAsyncMessageId(),
      subscriptionId: subscription.id,
      projectId: project.id,
      tenantId: tenant.id,
      route: 'message',
      sessionKey: newCanonicalSessionKey(subscription.id),
      newConversation: true,
      text: 'hello',
      metadata: {},
      acceptedAt: new Date().toISOString(),
    };
    // As the API's submit does: the job and its NOTIFY in one transaction, on another pg-boss.
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await apiBoss.send(HTTP_ASYNC_TURN_QUEUE, data, {
        id: httpAsyncTurnJobId(subscription.id, data.messageId),
        db: { executeSql: (text, values) => client.query(text, values) },
      });
      await notifyChannelJob(client, HTTP_ASYNC_TURN_QUEUE);
      await client.query('commit');
    } finally {
      client.release();
    }
    const sent = Date.now();
    while (received.length === 0 && Date.now() - sent < 8_000) await new Promise((r) => setTimeout(r, 25));
    expect(received).toHaveLength(1);
    expect(Date.now() - sent).toBeLessThan(POLL_SECONDS * 1000);
    const [callback] = received;
    expect(agentResponsePayloadSchema.parse(JSON.parse(callback?.raw ?? '')).message_id).toBe(data.messageId);
    expect(
      verifyCallbackSignature({
        body: callback?.raw ?? '',
        timestamp: callback?.headers['x-parley-timestamp'] as string,
        signature: callback?.headers['x-parley-signature'] as string,
        secret: secret as string,
      }),
    ).toEqual({ ok: true });
  });
});
