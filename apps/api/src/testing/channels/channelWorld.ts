import { randomBytes } from 'node:crypto';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import {
  CHANNEL_INBOUND_QUEUE,
  CHANNEL_SEND_QUEUE,
  type ChannelConnection,
  type ConnectionStore,
  type CredentialKeyring,
  channelInboundMigrations,
  channelsMigrations,
  createChannelAdapters,
  createChannelJobQueue,
  createConnectionStore,
  createInboundPipeline,
  createKeyring,
  DEFAULT_CHANNEL_QUEUE_OPTIONS,
  ensureChannelQueues,
  type InboundAdapter,
  type InboundJobData,
  type InboundPipeline,
  type InboundWorkerDeps,
  processInboundJob,
  processSendJob,
  type SendJobData,
} from '@parley/channels';
import { LOOPBACK_API_BASE_URLS } from '@parley/channels/testing';
import { sessionStream, upcast } from '@parley/events';
import {
  createPostgresEventStore,
  eventStoreMigrations,
  type PostgresEventStore,
  type RecordedEvent,
} from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { type MigrationSet, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  type LlmProvider,
  type Runtime,
  type RuntimeDeps,
  runtimeMigrations,
} from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import type { PgBoss } from 'pg-boss';
import { type AppOptions, buildApp } from '../../app.js';

/** The public base URL the webhook routes see (what URL-signing schemes sign). */
export const PUBLIC_BASE_URL = 'https://parley.example';

/**
 * Test-only: everything between a platform's webhook and its API, real: PostgreSQL, the log, the
 * runtime (scripted agents), the connection store, the API's webhook routes and the worker's job
 * functions, driven one job at a time (`drain`) so that a test sees exactly what its request caused.
 */
export interface ChannelWorld {
  db: TestDatabase;
  store: PostgresEventStore;
  auth: AuthStore;
  connections: ConnectionStore;
  runtime: Runtime;
  /** The keyring of connections and of agents' secrets and suspensions. */
  keyring: CredentialKeyring;
  boss: PgBoss;
  app: FastifyInstance;
  /** The webhooks' inbound pipeline (what the a2a routes deliver through). */
  pipeline: InboundPipeline;
  deps: InboundWorkerDeps;
  /** Turns run so far (every runTurn call of the worker). */
  readonly turns: number;
  /** A connection in a fresh project. */
  connect(input: {
    channelType: string;
    provider?: string;
    externalIdentifier: string;
    credentials: Record<string, string>;
    settings?: Record<string, unknown>;
  }): Promise<ChannelConnection>;
  /** Works the queued inbound jobs, then the send jobs they queued, until both queues are empty. */
  drain(): Promise<{ inbound: number; sent: number; failed: number }>;
  /** Messages recorded for a connection (the dedupe table). */
  receivedCount(connectionId: string): Promise<number>;
  /** The session a conversation of a connection is mapped to. */
  sessionOf(connectionId: string, externalSessionKey: string): Promise<string | undefined>;
  /** Every session a connection's conversations are mapped to. */
  sessionsOf(connectionId: string): Promise<string[]>;
  events(sessionId: string): Promise<RecordedEvent[]>;
  close(): Promise<void>;
}

export interface ChannelWorldOptions {
  /**
   * The webhooks' and the worker's adapters (default: createChannelAdapters()). A function gets the
   * pool, for adapters that keep state in the database (a2a's task store).
   */
  adapters?:
    | ReadonlyMap<string, InboundAdapter>
    | ((pool: TestDatabase['pool']) => ReadonlyMap<string, InboundAdapter>);
  /** Migration sets beyond the log's, auth's, the runtime's and the channels' (e.g. a2aMigrations). */
  migrations?: MigrationSet[];
  /** Model providers beside the built-in ones (e.g. one that records each request). */
  providers?: LlmProvider[];
  /** The pipeline's budget for a synchronous turn (default SYNC_TURN_TIMEOUT_MS). */
  syncTurnTimeoutMs?: number;
  /** More of the runtime's dependencies (toolFetch, publicBaseUrl...); `secrets` is the world's keyring. */
  runtime?: Partial<Omit<RuntimeDeps, 'secrets'>>;
  /**
   * More of the API (`chat`, `a2a`), built from the world's parts. With `chat`, synchronous channels
   * run their turns through `chat.runtime` (app.ts), not through the worker's `deps.runTurn`.
   */
  app?: (
    parts: Pick<ChannelWorld, 'db' | 'store' | 'auth' | 'connections' | 'runtime' | 'pipeline'>,
  ) => Partial<AppOptions>;
}

export async function createChannelWorld(options: ChannelWorldOptions = {}): Promise<ChannelWorld> {
  const db = await createTestDatabase([
    eventStoreMigrations,
    authMigrations,
    runtimeMigrations,
    channelsMigrations,
    channelInboundMigrations,
    ...(options.migrations ?? []),
  ]);
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  const keyring = createKeyring(randomBytes(32));
  // Stand-ins listen on loopback: allowlisted as CHANNEL_API_BASE_URL_ALLOWLIST would.
  const connections = createConnectionStore(db.pool, keyring, { apiBaseUrl: LOOPBACK_API_BASE_URLS });
  const runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry(
      {},
      options.providers === undefined ? {} : { providers: options.providers },
    ),
    priceCards: createPriceCards(),
    logger: silentLogger(),
    secrets: keyring,
    ...options.runtime,
  });
  const adapters =
    typeof options.adapters === 'function'
      ? options.adapters(db.pool)
      : (options.adapters ?? createChannelAdapters());
  let turns = 0;
  const deps: InboundWorkerDeps = {
    pool: db.pool,
    store,
    adapters,
    connections,
    runTurn: (req) => {
      turns += 1;
      return runtime.runTurn(req);
    },
    logger: silentLogger(),
    apiBaseUrl: LOOPBACK_API_BASE_URLS,
  };
  const boss = createChannelJobQueue(db.pool);
  await boss.start();
  await ensureChannelQueues(boss, DEFAULT_CHANNEL_QUEUE_OPTIONS);
  const pipeline = createInboundPipeline({
    pool: db.pool,
    boss,
    adapters,
    connections,
    // Synchronous channels record their answer's delivery in the log (and need `chat` for turns).
    store,
    logger: silentLogger(),
    ...(options.syncTurnTimeoutMs === undefined ? {} : { syncTurnTimeoutMs: options.syncTurnTimeoutMs }),
  });
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
    channelWebhooks: { pipeline, publicBaseUrl: PUBLIC_BASE_URL },
    ...options.app?.({ db, store, auth, connections, runtime, pipeline }),
  });
  let projects = 0;

  return {
    db,
    store,
    auth,
    connections,
    runtime,
    keyring,
    boss,
    app,
    pipeline,
    deps,
    get turns() {
      return turns;
    },
    async connect(input) {
      projects += 1;
      const tenant = await auth.createTenant({ name: `channels ${projects}` });
      const project = await auth.createProject({ tenantId: tenant.id, slug: `channels-${projects}` });
      return connections.create(project.id, { ...input, settings: input.settings ?? {} });
    },
    async drain() {
      const counts = { inbound: 0, sent: 0, failed: 0 };
      for (;;) {
        const [job] = await boss.fetch<InboundJobData>(CHANNEL_INBOUND_QUEUE);
        if (job !== undefined) {
          await processInboundJob(deps, boss, job.data);
          await boss.complete(CHANNEL_INBOUND_QUEUE, job.id);
          counts.inbound += 1;
          continue;
        }
        const [send] = await boss.fetch<SendJobData>(CHANNEL_SEND_QUEUE);
        if (send === undefined) return counts;
        // One attempt each, as the last: a failure is recorded, not retried.
        const outcome = await processSendJob(deps, send.data, { retryCount: 0, retryLimit: 0 });
        await boss.complete(CHANNEL_SEND_QUEUE, send.id);
        if (outcome === 'sent') counts.sent += 1;
        else counts.failed += 1;
      }
    },
    async receivedCount(connectionId) {
      const { rows } = await db.pool.query<{ n: number }>(
        'select count(*)::int as n from channel_inbound_messages where connection_id = $1',
        [connectionId],
      );
      return rows[0]?.n ?? 0;
    },
    async sessionOf(connectionId, externalSessionKey) {
      const { rows } = await db.pool.query<{ session_id: string }>(
        'select session_id from channel_sessions where connection_id = $1 and external_session_key = $2',
        [connectionId, externalSessionKey],
      );
      return rows[0]?.session_id;
    },
    async sessionsOf(connectionId) {
      const { rows } = await db.pool.query<{ session_id: string }>(
        'select session_id from channel_sessions where connection_id = $1 order by created_at',
        [connectionId],
      );
      return rows.map((r) => r.session_id);
    },
    async events(sessionId) {
      const events: RecordedEvent[] = [];
      for await (const e of store.readStream(sessionStream(sessionId))) events.push(e);
      return events;
    },
    async close() {
      await app.close();
      await boss.stop({ graceful: false, timeout: 5_000 });
      await store.close();
      await db.close();
    },
  };
}
