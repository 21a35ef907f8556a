import { authMigrations, createAuthStore } from '@parley/auth';
import { type ParleyEvent, parseEvent, sessionStream, upcast } from '@parley/events';
import { createPostgresEventStore, type EventStore, eventStoreMigrations } from '@parley/eventstore';
import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { type AgentStore, createAgentStore } from '../agents/store.js';
import { createRuntime } from '../engine/runtime.js';
import type { Runtime, RuntimeDeps } from '../engine/types.js';
import { runtimeMigrations } from '../migrations.js';
import { createPriceCards } from '../pricing/index.js';
import { createProviderRegistry } from '../providers/index.js';
import type { LlmProvider } from '../providers/types.js';

/** Test-only: a database with the log, auth and agents, a tenant, a project and a runtime. */
export interface RuntimeHarness {
  db: TestDatabase;
  store: EventStore;
  agents: AgentStore;
  runtime: Runtime;
  tenantId: string;
  projectId: string;
  /** Another project (with its own tenant), for isolation checks. */
  newProject(settings?: Record<string, unknown>): Promise<{ tenantId: string; projectId: string }>;
  /** The session's events, parsed. */
  events(sessionId: string): Promise<ParleyEvent[]>;
  close(): Promise<void>;
}

export async function createRuntimeHarness(
  options: {
    providers?: LlmProvider[];
    extraSets?: Parameters<typeof createTestDatabase>[0];
    /** More of the runtime's dependencies (secrets, toolFetch, publicBaseUrl...). */
    runtime?: Partial<RuntimeDeps>;
  } = {},
): Promise<RuntimeHarness> {
  const db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    authMigrations,
    runtimeMigrations,
    ...(options.extraSets ?? []),
  ]);
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const auth = createAuthStore(db.pool);
  let n = 0;
  const newProject = async (settings: Record<string, unknown> = {}) => {
    n += 1;
    const tenant = await auth.createTenant({ name: `tenant ${n}` });
    const project = await auth.createProject({ tenantId: tenant.id, slug: `project-${n}`, settings });
    return { tenantId: tenant.id, projectId: project.id };
  };
  const { tenantId, projectId } = await newProject();
  const runtime = createRuntime({
    pool: db.pool,
    store,
    providers: createProviderRegistry({}, { providers: options.providers ?? [] }),
    priceCards: createPriceCards(),
    logger: silentLogger(),
    ...options.runtime,
  });
  return {
    db,
    store,
    agents: createAgentStore(db.pool, options.runtime?.secrets),
    runtime,
    tenantId,
    projectId,
    newProject,
    async events(sessionId) {
      const out: ParleyEvent[] = [];
      for await (const e of store.readStream(sessionStream(sessionId))) {
        const parsed = parseEvent(e);
        if (parsed.known) out.push(parsed);
      }
      return out;
    },
    async close() {
      await store.close();
      await db.close();
    },
  };
}
