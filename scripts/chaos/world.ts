import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAuthStore } from '@parley/auth';
import { createPool, freePort, type Pool } from '@parley/platform';
import { type PrivatePostgres, startPrivatePostgres } from '@parley/platform/testing/privatePostgres';
import { sleep } from './load.js';
import {
  type ParleyProcess,
  type ProcessKind,
  parleyProcess,
  runParley,
  type UnexpectedExit,
} from './processes.js';

/** One chaos run's PostgreSQL (private: the run stops and restarts it), its logs and its processes. */
export interface World {
  readonly pg: PrivatePostgres;
  readonly logDir: string;
  /** A pool of the run itself (setup and counting); it outlives the restarts. */
  readonly pool: Pool;
  readonly exits: UnexpectedExit[];
  /** A fresh tenant and project with an ingest and an analytics key. */
  project(): Promise<ChaosProject>;
  /** A parley process on this database, with `env` on top of the run's; not started. */
  process(kind: ProcessKind, name: string, env?: Record<string, string>): Promise<ParleyProcess>;
  /** Stops every process it made (SIGTERM), then the database. */
  close(): Promise<void>;
}

export interface ChaosProject {
  tenantId: string;
  projectId: string;
  ingestKey: string;
  analyticsKey: string;
}

export interface Counts {
  logged: { sessions: number; messages: number };
  readModel: { sessions: number; messages: number };
}

const BASE_ENV = {
  // The chaos load is far above a tenant's default 100 requests/s; rate limits have their own scenario.
  RATE_LIMIT_PER_SECOND: '1000000',
  DATABASE_POOL_MAX: '10',
  LOG_POLL_INTERVAL_MS: '200',
};

export async function openWorld(progress: (line: string) => void): Promise<World> {
  progress('starting a private PostgreSQL cluster…');
  const pg = await startPrivatePostgres();
  const logDir = mkdtempSync(join(tmpdir(), 'parley-chaos-logs-'));
  const pool = createPool({ connectionString: pg.url, max: 4, applicationName: 'parley-chaos' });
  const exits: UnexpectedExit[] = [];
  const made: ParleyProcess[] = [];
  const env = { ...BASE_ENV, DATABASE_URL: pg.url };
  let closing = false;

  // Migrate once, through the CLI, before any process starts (as an operator deploys).
  await runParley(['migrate'], env);
  progress(`PostgreSQL on port ${pg.port}; logs in ${logDir}`);

  return {
    pg,
    logDir,
    pool,
    exits,
    async project() {
      const auth = createAuthStore(pool, { verifyCacheTtlMs: 5_000 });
      const tenant = await auth.createTenant({ name: `Chaos ${Date.now()}` });
      const project = await auth.createProject({
        tenantId: tenant.id,
        slug: `chaos-${Date.now().toString(36)}`,
      });
      const ingest = await auth.createApiKey({ projectId: project.id, scopes: ['ingest.write'] });
      const analytics = await auth.createApiKey({ projectId: project.id, scopes: ['analytics.read'] });
      return {
        tenantId: tenant.id,
        projectId: project.id,
        ingestKey: ingest.key,
        analyticsKey: analytics.key,
      };
    },
    async process(kind, name, extra = {}) {
      const port = kind === 'worker' ? undefined : await freePort();
      const p = parleyProcess({
        name,
        kind,
        env: { ...env, ...extra },
        logDir,
        ...(port === undefined ? {} : { port }),
        onUnexpectedExit: (exit) => {
          exits.push(exit);
          progress(`!! ${exit.name} exited on its own (code ${exit.code}, signal ${exit.signal})`);
          // As a supervisor (systemd, Kubernetes) would: start it again, so the run goes on and
          // counts every exit instead of waiting for a process that is gone.
          if (!closing)
            setTimeout(() => {
              if (!closing)
                p.start().catch((err: unknown) =>
                  progress(`!! ${exit.name} did not restart: ${String(err)}`),
                );
            }, 1_000);
        },
      });
      made.push(p);
      return p;
    },
    async close() {
      closing = true;
      await Promise.all(made.map((p) => p.stop().catch(() => {})));
      await pool.end().catch(() => {});
      await pg.destroy();
    },
  };
}

/** What the log and the session-summaries read model hold for a project. */
export async function countProject(pool: Pool, projectId: string): Promise<Counts> {
  const logged = await pool.query<{ sessions: number; messages: number }>(
    `select count(*) filter (where type = 'SessionStarted')::int as sessions,
            count(*) filter (where type = 'MessageReceived')::int as messages
       from events where metadata->>'projectId' = $1`,
    [projectId],
  );
  const read = await pool.query<{ sessions: number; messages: number }>(
    `select count(*)::int as sessions, coalesce(sum(user_messages), 0)::int as messages
       from session_summaries where project_id = $1`,
    [projectId],
  );
  return { logged: logged.rows[0]!, readModel: read.rows[0]! };
}

/** Waits until the read model holds what the log holds (the worker caught up), up to timeoutMs. */
export async function settledCounts(pool: Pool, projectId: string, timeoutMs: number): Promise<Counts> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const counts = await countProject(pool, projectId).catch(() => null);
    if (counts) {
      const caughtUp =
        counts.readModel.sessions === counts.logged.sessions &&
        counts.readModel.messages === counts.logged.messages;
      if (caughtUp || Date.now() > deadline) return counts;
    }
    await sleep(250);
  }
}
