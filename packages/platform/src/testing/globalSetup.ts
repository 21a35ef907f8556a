import pg from 'pg';
import type { TestProject } from 'vitest/node';
import './context.js';
import { ensureTestPostgres, type TestPostgres } from './postgres.js';

/**
 * vitest globalSetup: one PostgreSQL for the run (see ensureTestPostgres);
 * every spec file creates its own database in it (createTestDatabase), and all
 * of them are dropped at the end.
 */
interface Shared {
  server: Promise<TestPostgres>;
  runId: string;
  users: number;
}

// vitest calls globalSetup once per project (unit, int, e2e) in one process;
// they share one server.
const key = Symbol.for('parley.test.postgres');
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let shared = registry[key];
  if (!shared) {
    shared = {
      server: ensureTestPostgres(),
      runId: `${Date.now().toString(36)}${process.pid.toString(36)}`,
      users: 0,
    };
    registry[key] = shared;
    shared.server
      .then((s) => process.stderr.write(`[parley tests] PostgreSQL: ${s.source}\n`))
      .catch(() => {});
  }
  shared.users += 1;
  const server = await shared.server;
  const runId = shared.runId;
  project.provide('pgAdminUrl', server.adminUrl);
  project.provide('testRunId', runId);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    registry[key] = undefined;
    const admin = new pg.Client({ connectionString: server.adminUrl });
    try {
      await admin.connect();
      const { rows } = await admin.query<{ datname: string }>(
        `select datname from pg_database where datname like $1`,
        [`parley_t_${runId}_%`],
      );
      for (const { datname } of rows) await admin.query(`drop database if exists "${datname}" with (force)`);
    } finally {
      await admin.end().catch(() => {});
      await server.stop();
    }
  };
}
