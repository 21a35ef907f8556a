import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, sessionScopeFromLog } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { createInProcessActiveSessionLimiter, createInProcessRateLimiter } from '@parley/http';
import { migrate, type Pool, silentLogger } from '@parley/platform';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import {
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  type LlmProvider,
  type ProviderRegistry,
  runtimeMigrations,
} from '@parley/runtime';
import { type Latency, latencyOf, meterProcess } from './stats.js';

export interface ChatBenchResult {
  throughput: {
    clients: number;
    seconds: number;
    turns: number;
    turnsPerSecond: number;
    request: Latency;
    errors: number;
  };
  latency: {
    turns: number;
    /** Round trip seen by the client (HTTP on 127.0.0.1, JSON both ways). */
    total: Latency;
    /** The provider's own time inside each turn (the scripted provider's complete()). */
    provider: Latency;
    /** total - provider, per turn: what Parley adds (auth, limits, appends, projection-free). */
    added: Latency;
    /** SQL statements (round trips) per turn, and this process's CPU per turn (API and client). */
    statementsPerTurn: number;
    cpuMsPerTurn: number;
  };
}

const MESSAGES = [
  'Where is my order? It was due on Tuesday.',
  'Can you check the delivery status for me?',
  'It should have arrived at the office, not at home.',
  'Thanks. Can I change the address for the next one?',
  'Great, that is all for today.',
];

/** The configured providers, each call's own time added to `spent.ms`. */
export function timedProviders(inner: ProviderRegistry, spent: { ms: number }): ProviderRegistry {
  return {
    names: () => inner.names(),
    get(name) {
      const provider = inner.get(name);
      const timed: LlmProvider = {
        name: provider.name,
        async complete(req, onDelta) {
          const started = performance.now();
          try {
            return await provider.complete(req, onDelta);
          } finally {
            spent.ms += performance.now() - started;
          }
        },
      };
      return timed;
    },
  };
}

/**
 * Turns through POST /api/v1/chat/send over HTTP on 127.0.0.1 with the scripted provider: the app
 * as apps/api/src/server.ts composes the chat routes (a real `chat.write` key and its 5 s cache, session limits
 * in-process, the runtime appending each turn's events), the tenant request rate raised out of the
 * way. Sessions of 5 turns (the first message starts one, the next four continue it). Phase 1:
 * `clients` loops as fast as answered, turns/s. Phase 2: one client, `latencyTurns` turns in a
 * row; per turn, the client's round trip minus the provider's own time is Parley's added latency.
 */
export async function benchChat(
  pool: Pool,
  shape: { seconds: number; clients: number; latencyTurns: number },
  log: (line: string) => void,
): Promise<ChatBenchResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations, authMigrations, runtimeMigrations]);
  const store = createPostgresEventStore({ pool, upcast });
  // Key verifications cached as the API process caches them (apps/api/src/server.ts, 5 s).
  const auth = createAuthStore(pool, { verifyCacheTtlMs: 5_000 });
  const tenant = await auth.createTenant({ name: 'bench chat' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench-chat', name: 'Bench chat' });
  const { key } = await auth.createApiKey({ projectId: project.id, name: 'chat', scopes: ['chat.write'] });
  const spent = { ms: 0 };
  const runtime = createRuntime({
    pool,
    store,
    providers: timedProviders(createProviderRegistry({}), spent),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 1_000_000 },
    chat: {
      verifyApiKey: (k) => auth.verifyApiKey(k),
      runtime,
      sessionScope: sessionScopeFromLog(store),
      limits: {
        messageRate: createInProcessRateLimiter(),
        messagesPerMinute: 1_000_000,
        activeSessions: createInProcessActiveSessionLimiter(),
        maxConcurrentSessions: 1_000_000,
        activeWindowMs: 300_000,
      },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  // node:http with keep-alive rather than fetch: the clients share the API's process and core, and
  // fetch (undici's WHATWG layer) cost about as much CPU per turn as the route itself.
  const agent = new Agent({ keepAlive: true, maxSockets: shape.clients + 1 });
  const post = (body: string) =>
    new Promise<{ status: number; json: { data?: { sessionId: string } } }>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/chat/send',
          headers: {
            'content-type': 'application/json',
            'x-api-key': key,
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            try {
              resolve({
                status: res.statusCode ?? 0,
                json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
              });
            } catch (err) {
              reject(err);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  /** One conversation's next turn: starts a session every 5 turns. */
  const conversation = () => {
    let sessionId: string | undefined;
    let turn = 0;
    return async (): Promise<boolean> => {
      const message = MESSAGES[turn % MESSAGES.length]!;
      const body = sessionId === undefined ? { projectId: project.id, message } : { sessionId, message };
      const { status, json } = await post(JSON.stringify(body));
      if (status !== 200 || json.data === undefined) {
        sessionId = undefined;
        turn = 0;
        return false;
      }
      turn += 1;
      sessionId = turn % MESSAGES.length === 0 ? undefined : json.data.sessionId;
      return true;
    };
  };

  try {
    // Warm-up: connections, JIT, the key cache.
    const warm = conversation();
    for (let i = 0; i < 20; i++) await warm();

    log(`chat: ${shape.clients} clients for ${shape.seconds} s…`);
    const samples: number[] = [];
    let errors = 0;
    const deadline = performance.now() + shape.seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: shape.clients }, async () => {
        const next = conversation();
        while (performance.now() < deadline) {
          const t = performance.now();
          if (await next()) samples.push(performance.now() - t);
          else errors += 1;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;

    log(`chat: ${shape.latencyTurns} turns in a row for the added latency…`);
    const total: number[] = [];
    const provider: number[] = [];
    const added: number[] = [];
    const next = conversation();
    const meter = meterProcess();
    for (let i = 0; i < shape.latencyTurns; i++) {
      spent.ms = 0;
      const t = performance.now();
      if (!(await next())) {
        errors += 1;
        continue;
      }
      const ms = performance.now() - t;
      total.push(ms);
      provider.push(spent.ms);
      added.push(ms - spent.ms);
    }
    const metered = meter.stop();
    return {
      throughput: {
        clients: shape.clients,
        seconds: elapsed,
        turns: samples.length,
        turnsPerSecond: samples.length / elapsed,
        request: latencyOf(samples),
        errors,
      },
      latency: {
        turns: total.length,
        total: latencyOf(total),
        provider: latencyOf(provider),
        added: latencyOf(added),
        statementsPerTurn: metered.statements / shape.latencyTurns,
        cpuMsPerTurn: metered.cpuMs / shape.latencyTurns,
      },
    };
  } finally {
    agent.destroy();
    await app.close();
    await store.close();
  }
}
