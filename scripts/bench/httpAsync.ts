import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { buildApp } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import {
  CHANNEL_JOBS_NOTIFY_CHANNEL,
  cachedSubscriptionStore,
  channelInboundMigrations,
  checkCallbackUrl,
  createChannelJobQueue,
  createGuardedFetch,
  createHttpAsyncIntake,
  createKeyring,
  createSubscriptionStore,
  ensureHttpAsyncQueues,
  type HttpAsyncWorkers,
  httpAsyncMigrations,
  parseCallbackAllowlist,
  workHttpAsyncQueues,
} from '@parley/channels';
import { createSelfSignedCertificate } from '@parley/channels/testing';
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
import { alternate, type Latency, latencyOf, type PerRequest, perRequest } from './stats.js';

export interface HttpAsyncBenchResult {
  accept: {
    clients: number;
    seconds: number;
    submitsPerSecond: number;
    bareInsertsPerSecond: number;
    ratio: number;
    request: Latency;
    bareRequest: Latency;
    /** SQL statements (round trips) and this process's CPU per request: bare route, submit. */
    bare: PerRequest;
    submit: PerRequest;
  };
  drain: { messages: number; seconds: number; callbacksPerSecond: number };
  endToEnd: { messages: number; ratePerSecond: number; latency: Latency; lost: number };
  receiverDown: {
    messages: number;
    ratePerSecond: number;
    downSeconds: number;
    /** Recovery (the receiver listening again) to the last agent.response received, s. */
    recoverySeconds: number;
    lost: number;
    duplicates: number;
    processedOnce: number;
    /** Failed attempts (connection refused) the receiver caused while down. */
    failedAttempts: number;
  };
  worker: { pollingIntervalSeconds: number; teamSize: number; schedule: readonly number[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The local HTTPS receiver: notes each agent.response's arrivals by message_id; can go down and come back. */
class Receiver {
  /** message_id → arrival times (performance.now()), duplicates included. */
  readonly arrivals = new Map<string, number[]>();
  private server: Server | null = null;
  port = 0;

  constructor(private readonly tls: { key: string; cert: string }) {}

  async up(): Promise<void> {
    const server = createServer(this.tls, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = performance.now();
        res.writeHead(200).end();
        if (req.headers['x-parley-event'] !== 'agent.response') return;
        const id = String(
          (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message_id?: unknown }).message_id,
        );
        const seen = this.arrivals.get(id);
        if (seen === undefined) this.arrivals.set(id, [at]);
        else seen.push(at);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Down: the port refuses connections (kept-alive ones are closed too). */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  received(ids: Iterable<string>): number {
    let n = 0;
    for (const id of ids) if (this.arrivals.has(id)) n += 1;
    return n;
  }
}

/**
 * The HTTP async channel over HTTP on 127.0.0.1, the receiver a local HTTPS server (self-signed,
 * trusted through the guarded fetch's `ca`, 127.0.0.1/32 allowlisted):
 * 1. accept: POST /api/v1/channels/http-async/message, each a new conversation, as fast as answered
 *    (no worker), against a bare Fastify route that reads the same body and INSERTs one row;
 * 2. drain: the backlog of (1) answered by the worker (pg-boss, LISTEN wake-ups, the turn with the
 *    scripted provider, then the signed callback); then end to end at a steady rate, submit start to
 *    the agent.response reaching the receiver;
 * 3. receiver down: messages at the same rate while the receiver refuses connections, then it comes
 *    back; every reply must arrive (the callback retry schedule), each message processed once.
 */
export async function benchHttpAsync(
  pool: Pool,
  url: string,
  options: {
    seconds: number;
    clients: number;
    rate: number;
    pollingIntervalSeconds: number;
    teamSize: number;
    downSeconds: number;
    /** The callback retry schedule, s (the production default unless told). */
    schedule: readonly number[];
  },
  log: (line: string) => void,
): Promise<HttpAsyncBenchResult> {
  await migrate(pool, [
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelInboundMigrations,
    httpAsyncMigrations,
  ]);
  await pool.query('create table bench_bare_messages (id text primary key, body jsonb not null)');
  const store = createPostgresEventStore({ pool, connectionString: url, upcast });
  // Key verifications cached as the API process caches them (apps/api/src/server.ts, 5 s).
  const auth = createAuthStore(pool, { verifyCacheTtlMs: 5_000 });
  const tenant = await auth.createTenant({ name: 'Bench' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'http-async-bench' });
  const apiKey = (
    await auth.createApiKey({ projectId: project.id, name: 'bench', scopes: ['channels.http_async'] })
  ).key;

  const cert = createSelfSignedCertificate();
  const receiver = new Receiver(cert);
  await receiver.up();
  const allowlist = parseCallbackAllowlist('127.0.0.1/32');
  const subscriptions = createSubscriptionStore(pool, createKeyring(randomBytes(32)), {
    checkUrl: (u) => checkCallbackUrl(u, { allowlist }),
  });
  const subscriptionId = (
    await subscriptions.create(project.id, {
      displayName: 'Bench receiver',
      callbackUrl: `https://127.0.0.1:${receiver.port}/parley`,
      events: ['agent.response'],
    })
  ).subscription.id;
  const guarded = createGuardedFetch({ allowlist, ca: cert.cert });

  const apiBoss = createChannelJobQueue(pool);
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000 },
    httpAsyncSubmit: {
      verifyApiKey: (key) => auth.verifyApiKey(key),
      // As apps/api/src/server.ts composes it: the subscription check cached per process.
      intake: createHttpAsyncIntake({
        pool,
        store,
        subscriptions: cachedSubscriptionStore(subscriptions),
        boss: apiBoss,
      }),
    },
  });
  const bare = Fastify({ logger: false });
  bare.post('/bare', async (request) => {
    const body = request.body as { session_key: string };
    await pool.query('insert into bench_bare_messages (id, body) values ($1, $2)', [body.session_key, body]);
    return { success: true };
  });
  const workerBoss = createChannelJobQueue(pool);
  let listener: Listener | undefined;
  await workerBoss.start();
  // The worker creates the queues; without them the submit answers 503.
  await ensureHttpAsyncQueues(workerBoss);
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });
    const submitUrl = `${base}/api/v1/channels/http-async/message`;
    let seq = 0;
    /** One message, a new conversation (the caller's own session key); the message_id of a 202. */
    const submit = async (target: string): Promise<string> => {
      seq += 1;
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({
          project_id: project.id,
          subscription_id: subscriptionId,
          message: 'Where is my order? It was due on Tuesday.',
          session_key: `bench-${seq}-${randomBytes(4).toString('hex')}`,
          metadata: { orderId: `A-${seq}` },
        }),
      });
      const body = (await res.json()) as { message_id?: string };
      if (res.status !== 202 && res.status !== 200) throw new Error(`submit answered ${res.status}`);
      return body.message_id ?? '';
    };
    const load = async (target: string, seconds: number) => {
      const times: number[] = [];
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: options.clients }, async () => {
          while (performance.now() < until) {
            const started = performance.now();
            await submit(target);
            times.push(performance.now() - started);
          }
        }),
      );
      return times;
    };
    /** `total` messages at `rate` per second; message_id → submit start. */
    const steady = async (total: number) => {
      const sentAt = new Map<string, number>();
      const started = performance.now();
      const posts: Promise<void>[] = [];
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / options.rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const at = performance.now();
        posts.push(submit(submitUrl).then((id) => void sentAt.set(id, at)));
      }
      await Promise.all(posts);
      return sentAt;
    };

    log(
      `http-async: accept, ${options.clients} clients, ${options.seconds} s against the bare route, then the submit…`,
    );
    await load(`${bareBase}/bare`, 1);
    await load(submitUrl, 1);
    // Bare and submit in alternating 1 s slices: the machine's load falls on both alike.
    const accepted = await alternate(
      { bare: (s: number) => load(`${bareBase}/bare`, s), submit: (s: number) => load(submitUrl, s) },
      options.seconds,
    );
    const bareTimes = accepted.bare.times;
    const submitTimes = accepted.submit.times;
    const bareUse = perRequest(accepted.bare.use, bareTimes.length);
    const submitUse = perRequest(accepted.submit.use, submitTimes.length);
    const submitsPerSecond = submitTimes.length / options.seconds;
    const bareInsertsPerSecond = bareTimes.length / options.seconds;
    log(`  submit ${Math.round(submitsPerSecond)}/s, bare ${Math.round(bareInsertsPerSecond)}/s`);

    const backlog =
      (await pool.query<{ n: number }>('select count(*)::int as n from channel_inbound_messages')).rows[0]
        ?.n ?? 0;
    log(`http-async: drain, the worker answers ${backlog} queued messages…`);
    const runtime = createRuntime({
      pool,
      store,
      providers: createProviderRegistry({}),
      priceCards: createPriceCards(),
      logger: silentLogger(),
    });
    const drainStarted = performance.now();
    const workers: HttpAsyncWorkers = await workHttpAsyncQueues(
      workerBoss,
      {
        pool,
        store,
        logger: silentLogger(),
        subscriptions,
        runTurn: (req) => runtime.runTurn(req),
        fetch: guarded,
        retryScheduleSeconds: options.schedule,
      },
      { teamSize: options.teamSize, pollingIntervalSeconds: options.pollingIntervalSeconds },
    );
    // As apps/worker does: jobs the API queues wake the workers through LISTEN.
    listener = startListener({
      connectionString: url,
      channel: CHANNEL_JOBS_NOTIFY_CHANNEL,
      name: 'channel-jobs',
      logger: silentLogger(),
      onWake: () => workers.wake(),
    });
    let lastDrainLog = performance.now();
    while (receiver.arrivals.size < backlog) {
      await sleep(100);
      if (performance.now() - lastDrainLog > 10_000) {
        lastDrainLog = performance.now();
        log(`  ${receiver.arrivals.size}/${backlog} callbacks received`);
      }
    }
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    log(`  ${Math.round(backlog / drainSeconds)} callbacks/s`);

    log(`http-async: end to end, ${options.rate} messages/s for ${options.seconds} s…`);
    const total = Math.round(options.rate * options.seconds);
    const sentAt = await steady(total);
    const deadline = performance.now() + 30_000;
    while (receiver.received(sentAt.keys()) < total && performance.now() < deadline) await sleep(50);
    const latencies: number[] = [];
    for (const [id, at] of sentAt) {
      const arrived = receiver.arrivals.get(id)?.[0];
      if (arrived !== undefined) latencies.push(arrived - at);
    }

    log(
      `http-async: receiver down, ${options.rate} messages/s for ${options.downSeconds} s, then back (schedule ${options.schedule.join(',')} s)…`,
    );
    const failedBefore = await failedAttempts(pool);
    await receiver.down();
    const downTotal = Math.round(options.rate * options.downSeconds);
    const downIds = [...(await steady(downTotal)).keys()];
    await receiver.up();
    const recovered = performance.now();
    const failedWhileDown = (await failedAttempts(pool)) - failedBefore;
    log(
      `  receiver back; ${failedWhileDown} attempts refused so far; waiting for every reply (up to 15 min)…`,
    );
    const waitUntil = recovered + 15 * 60_000;
    let lastLog = recovered;
    while (receiver.received(downIds) < downTotal && performance.now() < waitUntil) {
      await sleep(200);
      if (performance.now() - lastLog >= 10_000) {
        lastLog = performance.now();
        log(
          `  ${receiver.received(downIds)}/${downTotal} replies received, ${Math.round((lastLog - recovered) / 1000)} s after recovery`,
        );
      }
    }
    let last = recovered;
    let duplicates = 0;
    for (const id of downIds) {
      const seen = receiver.arrivals.get(id) ?? [];
      duplicates += Math.max(0, seen.length - 1);
      for (const at of seen) last = Math.max(last, at);
    }
    const processedOnce = receiver.received(downIds);
    log(
      `  ${processedOnce}/${downTotal} received, last ${((last - recovered) / 1000).toFixed(1)} s after recovery`,
    );

    return {
      accept: {
        clients: options.clients,
        seconds: options.seconds,
        submitsPerSecond,
        bareInsertsPerSecond,
        ratio: submitsPerSecond / bareInsertsPerSecond,
        request: latencyOf(submitTimes),
        bareRequest: latencyOf(bareTimes),
        bare: bareUse,
        submit: submitUse,
      },
      drain: { messages: backlog, seconds: drainSeconds, callbacksPerSecond: backlog / drainSeconds },
      endToEnd: {
        messages: total,
        ratePerSecond: options.rate,
        latency: latencyOf(latencies),
        lost: total - latencies.length,
      },
      receiverDown: {
        messages: downTotal,
        ratePerSecond: options.rate,
        downSeconds: options.downSeconds,
        recoverySeconds: (last - recovered) / 1000,
        lost: downTotal - processedOnce,
        duplicates,
        processedOnce,
        failedAttempts: (await failedAttempts(pool)) - failedBefore,
      },
      worker: {
        pollingIntervalSeconds: options.pollingIntervalSeconds,
        teamSize: options.teamSize,
        schedule: options.schedule,
      },
    };
  } finally {
    await listener?.close();
    await workerBoss.stop({ graceful: false, timeout: 5_000 });
    await app.close();
    await bare.close();
    await store.close();
    guarded.close();
    await receiver.down();
    cert.remove();
  }
}

/** Callback attempts that failed (HttpAsyncCallbackAttempted with a result other than delivered). */
async function failedAttempts(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `select count(*)::int as n from events
      where type = 'HttpAsyncCallbackAttempted' and data->>'result' <> 'delivered'`,
  );
  return rows[0]?.n ?? 0;
}
