import { randomBytes } from 'node:crypto';
import { createPool, type Pool } from '@parley/platform';
import { ensureTestPostgres } from '@parley/platform/testing/postgres';
import pg from 'pg';

export interface BenchDatabase {
  pool: Pool;
  url: string;
  source: string;
  close(): Promise<void>;
}

/**
 * A fresh database on the same server the tests use (PARLEY_TEST_DATABASE_URL,
 * the machine's PostgreSQL, or an embedded one), dropped afterwards unless BENCH_KEEP_DB is set
 * (its URL is printed, to look at plans on the same data).
 */
export async function openBenchDatabase(poolMax: number): Promise<BenchDatabase> {
  const server = await ensureTestPostgres();
  const name = `parley_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(server.adminUrl);
  url.pathname = `/${name}`;
  const pool = createPool({
    connectionString: url.toString(),
    max: poolMax,
    applicationName: 'parley-bench',
  });
  return {
    pool,
    url: url.toString(),
    source: server.source,
    async close() {
      await pool.end();
      if (process.env.BENCH_KEEP_DB) {
        process.stderr.write(`bench database kept (BENCH_KEEP_DB): ${url.toString()}\n`);
        await admin.end();
        await server.stop();
        return;
      }
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.end();
      await server.stop();
    },
  };
}
