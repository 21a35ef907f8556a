import type { AddressInfo } from 'node:net';
import { type AuthStore, authMigrations, createAuthStore, expandScopes } from '@parley/auth';
import { sessionStream, upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import {
  createInProcessActiveSessionLimiter,
  createInProcessRateLimiter,
  createJwtVerifier,
  type SessionLimits,
} from '@parley/http';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import {
  createPriceCards,
  createProviderRegistry,
  createRuntime,
  type Runtime,
  runtimeMigrations,
} from '@parley/runtime';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import type { ChatRouteOptions } from '../routes/chat/options.js';
import { sessionScopeFromLog } from '../routes/chat/sessionScopeFromLog.js';

export const JWT_SECRET = 'chat-test-secret-of-at-least-32-characters';

/** Test-only: a database with the log, auth and agents, the runtime with the scripted provider. */
export interface ChatWorld {
  db: TestDatabase;
  store: PostgresEventStore;
  auth: AuthStore;
  runtime: Runtime;
  /** A fresh tenant and project, and a `chat.write` key for it. */
  newProject(scopes?: string[]): Promise<{ tenantId: string; projectId: string; key: string }>;
  /** Event types of a session's stream, in order. */
  eventTypes(sessionId: string): Promise<string[]>;
  close(): Promise<void>;
}

let n = 0;

export async function createChatWorld(): Promise<ChatWorld> {
  const db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    runtimeMigrations,
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
  return {
    db,
    store,
    auth,
    runtime,
    async newProject(scopes = ['chat.write']) {
      n += 1;
      const tenant = await auth.createTenant({ name: `chat tenant ${n}` });
      const project = await auth.createProject({ tenantId: tenant.id, slug: `chat-${n}`, name: `Chat ${n}` });
      const { key } = await auth.createApiKey({ projectId: project.id, name: 'chat', scopes });
      return { tenantId: tenant.id, projectId: project.id, key };
    },
    async eventTypes(sessionId) {
      const types: string[] = [];
      for await (const e of store.readStream(sessionStream(sessionId))) types.push(e.type);
      return types;
    },
    async close() {
      await store.close();
      await db.close();
    },
  };
}

export function inProcessLimits(overrides: Partial<SessionLimits> = {}): SessionLimits {
  return {
    messageRate: createInProcessRateLimiter(),
    messagesPerMinute: 1_000,
    activeSessions: createInProcessActiveSessionLimiter(),
    maxConcurrentSessions: 1_000,
    activeWindowMs: 300_000,
    ...overrides,
  };
}

/** The API with the chat routes over the world, listening on a free port of 127.0.0.1. */
export async function listeningChatApp(
  world: ChatWorld,
  options: Partial<ChatRouteOptions> & { jwksUrl?: string } = {},
): Promise<{ app: FastifyInstance; url: string }> {
  const { jwksUrl, ...overrides } = options;
  const app = await buildApp({
    logger: silentLogger(),
    readiness: { database: async () => true, pendingMigrations: async () => [] },
    chat: {
      verifyApiKey: (key) => world.auth.verifyApiKey(key),
      verifyJwt: createJwtVerifier({
        secret: JWT_SECRET,
        jwksUrl,
        expandScopes,
        tenantProjects: (t, p) => world.auth.tenantProjects(t, p),
      }),
      runtime: world.runtime,
      sessionScope: sessionScopeFromLog(world.store),
      limits: inProcessLimits(),
      ...overrides,
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}` };
}
