import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  channelInboundMigrations,
  channelsMigrations,
  checkCallbackUrl,
  createChannelJobQueue,
  createConnectionStore,
  createGuardedFetch,
  createKeyring,
  createSubscriptionStore,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  ensureHttpAsyncQueues,
  ensureToolResumeQueue,
  HTTP_ASYNC_CALLBACK_QUEUE,
  type HttpAsyncCallbackJobData,
  type HttpAsyncTurnJobData,
  type HttpAsyncWorkerDeps,
  httpAsyncMigrations,
  newCanonicalSessionKey,
  newHttpAsyncMessageId,
  parseCallbackAllowlist,
  processHttpAsyncCallbackJob,
  processHttpAsyncTurnJob,
  processToolResumeJob,
  signSuspensionCallback,
  TOOL_RESUME_QUEUE,
} from '@parley/channels';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createAgentStore,
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  createSuspensionStore,
  type Runtime,
  runtimeMigrations,
  SUSPENSION_HEADERS,
} from '@parley/runtime';
import { createQueuedProvider } from '@parley/runtime/testing';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';

/**
 * The second "done when": a suspended tool resumes through a signed callback and its reply
 * reaches an HTTP async subscriber as a delayed callback; wrong signatures and replays are refused.
 * The worker's job functions run one at a time (drain), the API's callback route through inject.
 */
const keyring = createKeyring(randomBytes(32));
const allowlist = parseCallbackAllowlist('127.0.0.1/32');
const model = createQueuedProvider('openai-compatible', 'gpt-4o-mini');
let db: TestDatabase;
let store: PostgresEventStore;
let runtime: Runtime;
let boss: PgBoss;
let app: FastifyInstance;
let desk: Server;
let receiver: Server;
const toolCalls: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const callbacks: Array<{ event: string; body: Record<string, unknown> }> = [];
let deps: HttpAsyncWorkerDeps;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const collect = (req: import('node:http').IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

beforeAll(async () => {
  // The refund desk: accepts the call (202) and answers later through the callback URL.
  desk = createServer(async (req, res) => {
    toolCalls.push({ headers: req.headers, body: await collect(req) });
    res.writeHead(202, { 'content-type': 'application/json' }).end('{"queued":true}');
  });
  receiver = createServer(async (req, res) => {
    callbacks.push({ event: String(req.headers['x-parley-event']), body: JSON.parse(await collect(req)) });
    res.writeHead(200).end();
  });
  const deskUrl = await listen(desk);
  const receiverUrl = await listen(receiver);
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
    providers: createProviderRegistry({}, { providers: [model] }),
    priceCards: createPriceCards(),
    logger: silentLogger(),
    secrets: keyring,
    toolFetch: createGuardedFetch({ allowlist }),
    publicBaseUrl: 'https://parley.example',
  });
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureChannelQueues(boss, DEFAULT_CHANNEL_QUEUE_OPTIONS);
  await ensureHttpAsyncQueues(boss);
  await ensureToolResumeQueue(boss);
  const subscriptions = createSubscriptionStore(db.pool, keyring, {
    checkUrl: (url) => checkCallbackUrl(url, { allowlist }),
  });
  deps = {
    pool: db.pool,
    store,
    logger: silentLogger(),
    subscriptions,
    runTurn: (req) => runtime.runTurn(req),
    fetch: createGuardedFetch({ allowlist }),
    retryScheduleSeconds: [1],
  };
  app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    suspensions: { suspensions: createSuspensionStore(db.pool, keyring), boss },
  });

  const auth = createAuthStore(db.pool);
  const tenant = await auth.createTenant({ name: 'suspended' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'suspended' });
  await createAgentStore(db.pool, keyring).create(project.id, {
    name: 'refunds',
    provider: 'openai-compatible',
    tools: [
      {
        name: 'request_refund',
        parameters: { type: 'object', properties: { invoice: { type: 'string' } } },
        implementation: { type: 'http', url: `${deskUrl}/refunds`, retries: 0 },
        suspend: { timeoutSeconds: 600 },
      },
    ],
  });
  const { subscription } = await subscriptions.create(project.id, {
    displayName: 'crm',
    callbackUrl: `${receiverUrl}/hook`,
    events: ['agent.response', 'agent.status', 'agent.media'],
  });
  scope = { tenantId: tenant.id, projectId: project.id, subscriptionId: subscription.id };
}, 60_000);
let scope: { tenantId: string; projectId: string; subscriptionId: string };

afterAll(async () => {
  await app?.close();
  await boss?.stop({ graceful: false, timeout: 5_000 });
  for (const server of [desk, receiver]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
  await store?.close();
  await db?.close();
});

/** Delivers every queued callback attempt (one attempt each). */
async function deliverCallbacks(): Promise<void> {
  for (;;) {
    const [job] = await boss.fetch<HttpAsyncCallbackJobData>(HTTP_ASYNC_CALLBACK_QUEUE);
    if (job === undefined) return;
    await processHttpAsyncCallbackJob(deps, boss, job.data);
    await boss.complete(HTTP_ASYNC_CALLBACK_QUEUE, job.id);
  }
}

describe('a suspended tool over the HTTP async channel', () => {
  it('suspends, resumes through the signed callback, and answers the subscriber with a delayed callback', async () => {
    const data: HttpAsyncTurnJobData = {
      messageId: newHttpAsyncMessageId(),
      subscriptionId: scope.subscriptionId,
      projectId: scope.projectId,
      tenantId: scope.tenantId,
      route: 'message',
      sessionKey: newCanonicalSessionKey(scope.subscriptionId),
      newConversation: true,
      text: 'Refund invoice INV-1182 please',
      metadata: { ticket: 'T-77' },
      acceptedAt: new Date().toISOString(),
    };
    model.queue({ toolCalls: [{ name: 'request_refund', arguments: { invoice: 'INV-1182' } }] });
    expect(await processHttpAsyncTurnJob(deps, boss, data)).toBe('suspended');
    await deliverCallbacks();
    // Only `processing` so far: the reply waits for the desk.
    expect(callbacks.map((c) => [c.event, c.body.status])).toEqual([['agent.status', 'processing']]);

    const call = toolCalls.at(-1)!;
    const suspensionId = String(call.headers[SUSPENSION_HEADERS.id.toLowerCase()]);
    const secret = String(call.headers[SUSPENSION_HEADERS.secret.toLowerCase()]);
    const callbackUrl = new URL(String(call.headers[SUSPENSION_HEADERS.callbackUrl.toLowerCase()]));
    expect(callbackUrl.pathname).toBe(`/api/v1/suspensions/${suspensionId}/callback`);
    expect(JSON.parse(call.body)).toEqual({ invoice: 'INV-1182' });
    const post = (body: string, signature: string) =>
      app.inject({
        method: 'POST',
        url: callbackUrl.pathname,
        headers: { 'content-type': 'application/json', 'x-callback-signature': signature },
        payload: body,
      });
    const result = JSON.stringify({ approved: true, refundId: 'RF-9' });

    // A wrong signature changes nothing.
    expect((await post(result, signSuspensionCallback(result, 'not-the-secret'))).statusCode).toBe(401);
    expect(await boss.fetch(TOOL_RESUME_QUEUE)).toEqual([]);

    // The desk's signed result resumes the turn, once.
    expect((await post(result, signSuspensionCallback(result, secret))).statusCode).toBe(202);
    const replay = await post(result, signSuspensionCallback(result, secret));
    expect(replay.statusCode).toBe(409);
    expect(replay.json().error.code).toBe('SUSPENSION_ALREADY_RESUMED');

    const jobs = await boss.fetch(TOOL_RESUME_QUEUE, { batchSize: 5 });
    expect(jobs).toHaveLength(1);
    model.queue(
      {
        toolCalls: [
          {
            name: 'attach_media',
            arguments: {
              url: 'https://files.example/RF-9.pdf',
              mimeType: 'application/pdf',
              name: 'RF-9.pdf',
            },
          },
        ],
      },
      { text: 'Your refund RF-9 is approved.' },
    );
    const outcome = await processToolResumeJob(
      {
        pool: db.pool,
        store,
        boss,
        connections: createConnectionStore(db.pool, keyring),
        subscriptions: deps.subscriptions,
        retryScheduleSeconds: [1],
        logger: silentLogger(),
        resume: (req) => runtime.resume(req),
        suspensions: createSuspensionStore(db.pool, keyring),
      },
      jobs[0]!.data,
    );
    expect(outcome).toBe('delivered');
    await deliverCallbacks();

    // The delayed callbacks: the reply (for the original message_id), its media, and `completed`.
    const later = new Map(callbacks.slice(1).map((c) => [c.event, c.body]));
    expect([...later.keys()].sort()).toEqual(['agent.media', 'agent.response', 'agent.status']);
    expect(later.get('agent.response')).toMatchObject({
      message_id: data.messageId,
      session_key: data.sessionKey,
      response: 'Your refund RF-9 is approved.',
      outcome: { status: 'ok', usedFallback: false },
      metadata: { ticket: 'T-77' },
    });
    expect(later.get('agent.media')).toMatchObject({
      message_id: data.messageId,
      media: [
        {
          type: 'file',
          url: 'https://files.example/RF-9.pdf',
          mime_type: 'application/pdf',
          name: 'RF-9.pdf',
        },
      ],
    });
    expect(later.get('agent.status')).toMatchObject({ status: 'completed', previous_status: 'processing' });
    // The model read the desk's result as the tool's.
    expect(model.requests.at(-2)!.messages.at(-1)).toMatchObject({ role: 'tool', content: result });
  });
});
