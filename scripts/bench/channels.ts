import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  cachedConnectionStore,
  channelInboundMigrations,
  channelsMigrations,
  createChannelAdapters,
  createChannelJobQueue,
  createConnectionStore,
  createInboundPipeline,
  createKeyring,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  parseCallbackAllowlist,
  workChannelQueues,
} from '@parley/channels';
import { upcast } from '@parley/events';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type Listener,
  startListener,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { migrate, type Pool, silentLogger } from '@parley/platform';
import { createPriceCards, createProviderRegistry, createRuntime, runtimeMigrations } from '@parley/runtime';
import Fastify from 'fastify';
import { alternate, type Latency, latencyOf, meterProcess, type PerRequest, perRequest } from './stats.js';

export interface ChannelsBenchResult {
  accept: {
    clients: number;
    seconds: number;
    webhooksPerSecond: number;
    bareInsertsPerSecond: number;
    ratio: number;
    request: Latency;
    /** SQL statements (round trips) and this process's CPU per request: bare route, webhook. */
    bare: PerRequest;
    webhook: PerRequest;
  };
  drain: { messages: number; seconds: number; repliesPerSecond: number; perReply: PerRequest };
  endToEnd: { messages: number; ratePerSecond: number; latency: Latency; lost: number };
  worker: { pollingIntervalSeconds: number; teamSize: number };
}

const PHONE_NUMBER_ID = '106540352242922';
const APP_SECRET = 'bench-app-secret';

/** A WhatsApp Cloud API messages webhook: one text message from `waId`. */
function webhookBody(messageId: string, waId: string): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: 'Bench User' }, wa_id: waId }],
              messages: [
                {
                  from: waId,
                  id: messageId,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: 'Where is my order? It was due on Tuesday.' },
                },
              ],
            },
          },
        ],
      },
    ],
  });
}
const sign = (raw: string) => `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;

/**
 * Channels, WhatsApp-shaped, over HTTP on 127.0.0.1:
 * 1. accept: signed webhooks with new message ids as fast as answered (no worker), against a bare
 *    Fastify route that reads the same body and INSERTs one row (the least a durable webhook does);
 * 2. drain: the backlog of (1) answered by the worker (pg-boss, the worker's polling and team size)
 *    through a local stand-in of the Graph API;
 * 3. end to end: messages at a steady rate, each from its own user; latency = the reply reaching the
 *    stand-in minus the webhook's start.
 */
export async function benchChannels(
  pool: Pool,
  url: string,
  options: {
    seconds: number;
    clients: number;
    rate: number;
    pollingIntervalSeconds: number;
    teamSize: number;
  },
  log: (line: string) => void,
): Promise<ChannelsBenchResult> {
  await migrate(pool, [
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelsMigrations,
    channelInboundMigrations,
  ]);
  await pool.query('create table bench_bare_webhooks (id text primary key, body jsonb not null)');
  const store = createPostgresEventStore({ pool, connectionString: url, upcast });
  const auth = createAuthStore(pool);
  const tenant = await auth.createTenant({ name: 'Bench' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'channels-bench' });
  // The platform stand-in listens on loopback: allowlisted as CHANNEL_API_BASE_URL_ALLOWLIST would.
  // As apps/api/src/server.ts and apps/worker/src/process.ts compose it: connection lookups cached per process.
  const connections = cachedConnectionStore(
    createConnectionStore(pool, createKeyring(randomBytes(32)), {
      apiBaseUrl: { allowlist: parseCallbackAllowlist('127.0.0.1/32') },
    }),
  );

  // The Graph API stand-in: notes when each user's reply arrives.
  const replies = new Map<string, number>();
  const platform = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to?: string; type?: string };
      if (body.type === 'text' && body.to !== undefined) replies.set(body.to, performance.now());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          messaging_product: 'whatsapp',
          messages: [{ id: `wamid.${randomBytes(6).toString('hex')}` }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
  const platformUrl = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  await connections.create(project.id, {
    channelType: 'whatsapp',
    externalIdentifier: PHONE_NUMBER_ID,
    credentials: { accessToken: 'EAAG-bench', appSecret: APP_SECRET, verifyToken: 'bench-verify' },
    settings: { apiBaseUrl: platformUrl },
  });

  const adapters = createChannelAdapters();
  const apiBoss = createChannelJobQueue(pool);
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000 },
    channelWebhooks: {
      pipeline: createInboundPipeline({ pool, boss: apiBoss, adapters, connections, logger: silentLogger() }),
    },
  });
  const bare = Fastify({ logger: false });
  bare.post('/bare', async (request) => {
    const body = request.body as { entry: [{ changes: [{ value: { messages: [{ id: string }] } }] }] };
    await pool.query('insert into bench_bare_webhooks (id, body) values ($1, $2)', [
      body.entry[0].changes[0].value.messages[0].id,
      body,
    ]);
    return { success: true };
  });
  const workerBoss = createChannelJobQueue(pool);
  let listener: Listener | undefined;
  await workerBoss.start();
  await ensureChannelQueues(workerBoss, DEFAULT_CHANNEL_QUEUE_OPTIONS);
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });
    const webhookUrl = `${base}/api/v1/channels/whatsapp/webhook`;
    let seq = 0;
    const post = async (target: string, waId: string) => {
      seq += 1;
      const raw = webhookBody(`wamid.bench-${seq}-${randomBytes(4).toString('hex')}`, waId);
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw) },
        body: raw,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
    };
    const load = async (target: string, seconds: number) => {
      const times: number[] = [];
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: options.clients }, async (_, client) => {
          while (performance.now() < until) {
            const started = performance.now();
            // Each message from its own user: the backlog spans conversations, as real traffic does
            // (one conversation's turns are serialized by its lock).
            await post(target, `447${String(client).padStart(2, '0')}${String(seq).padStart(8, '0')}`);
            times.push(performance.now() - started);
          }
        }),
      );
      return times;
    };

    log(
      `channels: accept, ${options.clients} clients, ${options.seconds} s against the bare route, then the webhook…`,
    );
    await load(`${bareBase}/bare`, 1);
    await load(webhookUrl, 1);
    // Bare and webhook in alternating 1 s slices: the machine's load falls on both alike.
    const accepted = await alternate(
      { bare: (s: number) => load(`${bareBase}/bare`, s), webhook: (s: number) => load(webhookUrl, s) },
      options.seconds,
    );
    const bareTimes = accepted.bare.times;
    const webhookTimes = accepted.webhook.times;
    const bareUse = perRequest(accepted.bare.use, bareTimes.length);
    const webhookUse = perRequest(accepted.webhook.use, webhookTimes.length);
    const webhooksPerSecond = webhookTimes.length / options.seconds;
    const bareInsertsPerSecond = bareTimes.length / options.seconds;
    log(`  webhook ${Math.round(webhooksPerSecond)}/s, bare ${Math.round(bareInsertsPerSecond)}/s`);

    const { rows } = await pool.query<{ n: number }>(
      'select count(*)::int as n from channel_inbound_messages',
    );
    const backlog = rows[0]?.n ?? 0;
    log(`channels: drain, the worker answers ${backlog} queued messages…`);
    const runtime = createRuntime({
      pool,
      store,
      providers: createProviderRegistry({}),
      priceCards: createPriceCards(),
      logger: silentLogger(),
    });
    const drainMeter = meterProcess();
    const drainStarted = performance.now();
    const workers = await workChannelQueues(
      workerBoss,
      { pool, store, adapters, connections, runTurn: (req) => runtime.runTurn(req), logger: silentLogger() },
      {
        ...DEFAULT_CHANNEL_QUEUE_OPTIONS,
        pollingIntervalSeconds: options.pollingIntervalSeconds,
        teamSize: options.teamSize,
      },
    );
    // As apps/worker does: jobs the API queues wake the workers through LISTEN.
    listener = startListener({
      connectionString: url,
      channel: CHANNEL_JOBS_NOTIFY_CHANNEL,
      name: 'channel-jobs',
      logger: silentLogger(),
      onWake: () => workers.wake(),
    });
    const sentCount = async () =>
      (
        await pool.query<{ n: number }>(
          "select count(*)::int as n from pgboss.job where name = 'channel-send' and state = 'completed'",
        )
      ).rows[0]?.n ?? 0;
    while ((await sentCount()) < backlog) await new Promise((r) => setTimeout(r, 100));
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    const drainUse = perRequest(drainMeter.stop(), backlog);
    log(`  ${Math.round(backlog / drainSeconds)} replies/s`);

    log(`channels: end to end, ${options.rate} messages/s for ${options.seconds} s…`);
    replies.clear();
    const sentAt = new Map<string, number>();
    const total = Math.round(options.rate * options.seconds);
    const started = performance.now();
    const posts: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / options.rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const waId = `4471${String(i).padStart(8, '0')}`;
      sentAt.set(waId, performance.now());
      posts.push(post(webhookUrl, waId));
    }
    await Promise.all(posts);
    const deadline = performance.now() + 30_000;
    while (replies.size < total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const latencies: number[] = [];
    for (const [waId, at] of sentAt) {
      const reply = replies.get(waId);
      if (reply !== undefined) latencies.push(reply - at);
    }
    const result: ChannelsBenchResult = {
      accept: {
        clients: options.clients,
        seconds: options.seconds,
        webhooksPerSecond,
        bareInsertsPerSecond,
        ratio: webhooksPerSecond / bareInsertsPerSecond,
        request: latencyOf(webhookTimes),
        bare: bareUse,
        webhook: webhookUse,
      },
      drain: {
        messages: backlog,
        seconds: drainSeconds,
        repliesPerSecond: backlog / drainSeconds,
        perReply: drainUse,
      },
      endToEnd: {
        messages: total,
        ratePerSecond: options.rate,
        latency: latencyOf(latencies),
        lost: total - latencies.length,
      },
      worker: { pollingIntervalSeconds: options.pollingIntervalSeconds, teamSize: options.teamSize },
    };
    return result;
  } finally {
    await listener?.close();
    await workerBoss.stop({ graceful: false, timeout: 5_000 });
    await app.close();
    await bare.close();
    await store.close();
    await new Promise<void>((resolve) => platform.close(() => resolve()));
  }
}
