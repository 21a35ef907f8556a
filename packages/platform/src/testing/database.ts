import { createHash, randomBytes } from 'node:crypto';
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

/** Names the migration state: the sets in order, each file's id and text. */
function stateKey(sets: readonly MigrationSet[]): string {
  const hash = createHash('sha256');
  for (const set of sets) {
    hash.update(`${set.name}\0`);
    for (const migration of set.migrations) hash.update(`${migration.id}\0${migration.sql}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The run's template database migrated with exactly these sets, made by the first spec file that asks
 * (an advisory lock keeps concurrent spec files from making it twice) and dropped with the run's other
 * databases. Cloning it (CREATE DATABASE … TEMPLATE) costs what creating an empty database does,
 * where migrating costs a second or more on a loaded machine.
 */
async function migratedTemplate(admin: pg.Client, adminUrl: string, sets: readonly MigrationSet[]) {
  const name = `parley_t_${inject('testRunId')}_tpl_${stateKey(sets)}`;
  await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return name;
    // Made under another name and renamed when complete: a spec file never clones half a migration.
    const building = `${name}_building`;
    await admin.query(`drop database if exists "${building}"`);
    await admin.query(`create database "${building}"`);
    const pool = createPool({ connectionString: withDatabase(adminUrl, building), max: 1 });
    try {
      await migrate(pool, [...sets]);
    } finally {
      // A template takes no connections: CREATE DATABASE refuses a template someone is connected to.
      await pool.end();
    }
    await admin.query(`alter database "${building}" rename to "${name}"`);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock(hashtext($1))', [name]);
  }
}

/**
 * A fresh database for one spec file, migrated with the given sets: a clone of the run's template for
 * those sets (see migratedTemplate), or an empty database without sets.
 */
export async function createTestDatabase(
  sets: MigrationSet[] = [],
  options: { poolMax?: number } = {},
): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `parley_t_${inject('testRunId')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    if (sets.length === 0) await admin.query(`create database "${name}"`);
    else {
      const template = await migratedTemplate(admin, adminUrl, sets);
      await admin.query(`create database "${name}" template "${template}"`);
    }
    // A transaction a test leaves open (a failure before its commit) holds back the log's readers in
    // every database of the cluster (docs/log.md): PostgreSQL ends such a session after a minute.
    await admin.query(`alter database "${name}" set idle_in_transaction_session_timeout = '60s'`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const pool = createPool({
    connectionString: url,
    max: options.poolMax ?? 10,
    applicationName: 'parley-test',
  });
  return { url, pool, close: () => pool.end() };
}
