import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type AuthStore, authMigrations, createAuthStore } from '@parley/auth';
import { type ConnectionStore, channelsMigrations, createConnectionStore } from '@parley/channels';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createInProcessRateLimiter } from '@parley/http';
import { createKeyring, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import {
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  type Runtime,
  runtimeMigrations,
} from '@parley/runtime';
import { telephonyMigrations } from '@parley/telephony';
import type { FastifyInstance } from 'fastify';
import { type AppOptions, buildApp } from '../../app.js';

/** A test database with what voice calls touch (log, auth, runtime, channel connections), a runtime and an API factory. */
export interface VoiceWorld {
  db: TestDatabase;
  store: PostgresEventStore;
  auth: AuthStore;
  runtime: Runtime;
  connections: ConnectionStore;
  newProject(): Promise<{ tenantId: string; projectId: string }>;
  /** buildApp with these route options, listening on 127.0.0.1; wsBase is its ws:// origin. */
  listen(options: Partial<AppOptions>): Promise<{ app: FastifyInstance; wsBase: string }>;
  /** Every event of a stream, type and data. */
  events(stream: string): Promise<Array<{ type: string; data: Record<string, unknown> }>>;
  close(): Promise<void>;
}

export async function createVoiceWorld(): Promise<VoiceWorld> {
  const db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    runtimeMigrations,
    telephonyMigrations,
    channelsMigrations,
  ]);
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  const runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}),
    priceCards: createPriceCards(),
    logger: silentLogger(),
  });
  const connections = createConnectionStore(db.pool, createKeyring(randomBytes(32)));
  const apps: FastifyInstance[] = [];
  let n = 0;
  return {
    db,
    store,
    auth,
    runtime,
    connections,
    async newProject() {
      n += 1;
      const tenant = await auth.createTenant({ name: `voice world ${n}` });
      const project = await auth.createProject({ tenantId: tenant.id, slug: `voice-world-${n}` });
      return { tenantId: tenant.id, projectId: project.id };
    },
    async listen(options) {
      const app = await buildApp({
        logger: silentLogger(),
        readiness: { database: async () => true, pendingMigrations: async () => [] },
        rateLimit: { limiter: createInProcessRateLimiter(), defaultLimit: 10_000 },
        ...options,
      });
      apps.push(app);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as AddressInfo;
      return { app, wsBase: `ws://127.0.0.1:${port}` };
    },
    async events(stream) {
      const out: Array<{ type: string; data: Record<string, unknown> }> = [];
      for await (const e of store.readStream(stream)) out.push({ type: e.type, data: e.data });
      return out;
    },
    async close() {
      for (const app of apps) await app.close();
      await store.close();
      await db.close();
    },
  };
}
