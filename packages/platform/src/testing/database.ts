import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import './context.js';
import { createPool, type Pool } from '../db.js';
import { type MigrationSet, migrate } from '../migrations.js';

export interface TestDatabase {
  url: string;
  pool: Pool;
  /** Closes the pool; the database itself is dropped at the end of the run. */
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** A fresh database for one spec file, migrated with the given sets. */
export async function createTestDatabase(
  sets: MigrationSet[] = [],
  options: { poolMax?: number } = {},
): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `parley_t_${inject('testRunId')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const pool = createPool({
    connectionString: url,
    max: options.poolMax ?? 10,
    applicationName: 'parley-test',
  });
  if (sets.length > 0) await migrate(pool, sets);
  return { url, pool, close: () => pool.end() };
}
