import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp, sessionScopeFromLog } from '@parley/api';
import { authMigrations, createAuthStore } from '@parley/auth';
import { createGuardedFetch, createKeyring, parseCallbackAllowlist } from '@parley/channels';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { createInProcessActiveSessionLimiter, createInProcessRateLimiter } from '@parley/http';
import { migrate, type Pool, silentLogger } from '@parley/platform';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import {
  createAgentStore,
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  runtimeMigrations,
} from '@parley/runtime';
import { timedProviders } from './chat.js';
import { type Latency, latencyOf } from './stats.js';

export interface ToolTurnBenchResult {
  turns: number;
  /** The client's round trip of chat/send. */
  total: Latency;
  /** The two model calls' own time (the scripted provider's complete()). */
  provider: Latency;
  /** The http tool's time as Parley's fetch saw it (the local service answers at once). */
  tool: Latency;
  /** total - provider - tool, per turn: what Parley adds to a tool turn. */
  added: Latency;
  /** Parley's added latency of a plain turn (no tool), measured beside it. */
  plainAdded: Latency;
  errors: number;
}

/**
 * A tool turn through POST /api/v1/chat/send over HTTP on 127.0.0.1: the scripted model asks for
 * an http tool (`/tool order_status`), the tool calls a local service through the SSRF-guarded
 * fetch (allowlisted loopback) with a bearer secret decrypted from the agent, the model answers
 * from the result. Two model calls, one tool call, one turn recorded with its trace and two
 * ledger rows. Per turn, the client's round trip minus the provider's time minus the tool's time
 * is what Parley adds; a plain turn's added latency is measured beside it.
 */
export async function benchToolTurn(
  pool: Pool,
  shape: { turns: number },
  log: (line: string) => void,
): Promise<ToolTurnBenchResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations, authMigrations, runtimeMigrations]);
  const service: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"orderId":"A-1001","status":"shipped","eta":"2025-06-12"}');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  const store = createPostgresEventStore({ pool, upcast });
  const auth = createAuthStore(pool);
  const tenant = await auth.createTenant({ name: 'bench tools' });
  const project = await auth.createProject({ tenantId: tenant.id, slug: 'bench-tools', name: 'Bench tools' });
  const { key } = await auth.createApiKey({ projectId: project.id, name: 'chat', scopes: ['chat.write'] });
  const keyring = createKeyring(Buffer.alloc(32, 7));
  await createAgentStore(pool, keyring).create(project.id, {
    name: 'orders',
    tools: [
      {
        name: 'order_status',
        parameters: { type: 'object', properties: { orderId: { type: 'string' } } },
        implementation: {
          type: 'http',
          method: 'GET',
          url: `${origin}/orders/{{args.orderId}}`,
          auth: { type: 'bearer', secret: 'ORDERS_TOKEN' },
          retries: 0,
        },
      },
    ],
    secrets: { ORDERS_TOKEN: 'bench-token' },
  });
  const spent = { ms: 0 };
  const toolMs = { ms: 0 };
  const guarded = createGuardedFetch({ allowlist: parseCallbackAllowlist('127.0.0.1/32') });
  const runtime = createRuntime({
    pool,
    store,
    providers: timedProviders(createProviderRegistry({}), spent),
    priceCards: createPriceCards(),
    logger: silentLogger(),
    secrets: keyring,
    toolFetch: async (url, init) => {
      const started = performance.now();
      try {
        const response = await guarded(url, init);
        const body = await response.arrayBuffer();
        return new Response(body, { status: response.status, headers: response.headers });
      } finally {
        toolMs.ms += performance.now() - started;
      }
    },
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
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/chat/send`;
  const headers = { 'content-type': 'application/json', 'x-api-key': key };
  const send = async (message: string): Promise<boolean> => {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ projectId: project.id, agentName: 'orders', message }),
    });
    await res.arrayBuffer();
    return res.status === 200;
  };
  const measure = async (message: string, turns: number) => {
    const total: number[] = [];
    const provider: number[] = [];
    const tool: number[] = [];
    const added: number[] = [];
    let errors = 0;
    for (let i = 0; i < turns; i++) {
      spent.ms = 0;
      toolMs.ms = 0;
      const t = performance.now();
      if (!(await send(message))) {
        errors += 1;
        continue;
      }
      const ms = performance.now() - t;
      total.push(ms);
      provider.push(spent.ms);
      tool.push(toolMs.ms);
      added.push(ms - spent.ms - toolMs.ms);
    }
    return { total, provider, tool, added, errors };
  };
  try {
    for (let i = 0; i < 20; i++) await send('warm up /tool order_status orderId=A-1001');
    log(`tool turn: ${shape.turns} tool turns in a row, then ${shape.turns} plain turns…`);
    const withTool = await measure('Where is my order? /tool order_status orderId=A-1001', shape.turns);
    const plain = await measure('Where is my order?', shape.turns);
    return {
      turns: withTool.total.length,
      total: latencyOf(withTool.total),
      provider: latencyOf(withTool.provider),
      tool: latencyOf(withTool.tool),
      added: latencyOf(withTool.added),
      plainAdded: latencyOf(plain.added),
      errors: withTool.errors + plain.errors,
    };
  } finally {
    await app.close();
    guarded.close();
    await store.close();
    service.closeAllConnections();
    await new Promise((resolve) => service.close(resolve));
  }
}
