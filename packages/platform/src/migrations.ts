import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Pool, PoolClient } from './db.js';
import { ParleyError } from './errors.js';

/**
 * Each package that owns tables ships a MigrationSet: ordered SQL files in its
 * own `migrations/` folder. Sets are applied in the order the process lists
 * them; inside a set, files are applied in name order (0001_…, 0002_…).
 */
export interface Migration {
  id: string;
  sql: string;
}

export interface MigrationSet {
  name: string;
  migrations: Migration[];
}

/** Reads `NNNN_name.sql` files from a folder (a file: URL or a path). */
export function loadMigrationSet(name: string, dir: URL | string): MigrationSet {
  const path = typeof dir === 'string' ? dir : fileURLToPath(dir);
  const migrations = readdirSync(path)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ id: f.replace(/\.sql$/, ''), sql: readFileSync(`${path}/${f}`, 'utf8') }));
  return { name, migrations };
}

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);

const LEDGER = `
  create table if not exists parley_migrations (
    set_name text not null,
    id text not null,
    checksum text not null,
    applied_at timestamptz not null default now(),
    primary key (set_name, id)
  )`;

export class MigrationError extends ParleyError {
  override readonly name = 'MigrationError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIGRATION_FAILED', 500, message, options);
  }
}

interface Applied {
  set_name: string;
  id: string;
  checksum: string;
}

async function appliedMigrations(client: Pool | PoolClient): Promise<Map<string, string>> {
  const exists = await client.query<{ ok: boolean }>(
    `select to_regclass('parley_migrations') is not null as ok`,
  );
  if (!exists.rows[0]?.ok) return new Map();
  const { rows } = await client.query<Applied>('select set_name, id, checksum from parley_migrations');
  return new Map(rows.map((r) => [`${r.set_name}/${r.id}`, r.checksum]));
}

function verify(
  sets: readonly MigrationSet[],
  applied: Map<string, string>,
): Array<{ set: string; migration: Migration }> {
  const pending: Array<{ set: string; migration: Migration }> = [];
  for (const set of sets) {
    for (const migration of set.migrations) {
      const key = `${set.name}/${migration.id}`;
      const stored = applied.get(key);
      if (stored === undefined) pending.push({ set: set.name, migration });
      else if (stored !== checksum(migration.sql)) {
        throw new MigrationError(
          `migration ${key} was changed after it was applied; add a new migration instead`,
        );
      }
    }
  }
  return pending;
}

/** Migrations not yet applied (for /readyz and `parley migrate --status`). */
export async function pendingMigrations(pool: Pool, sets: readonly MigrationSet[]): Promise<string[]> {
  return verify(sets, await appliedMigrations(pool)).map((p) => `${p.set}/${p.migration.id}`);
}

/**
 * Applies every pending migration in one transaction under an advisory lock,
 * so that several processes starting at once migrate exactly once.
 */
export async function migrate(pool: Pool, sets: readonly MigrationSet[]): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(hashtext('parley_migrations'))`);
    await client.query(LEDGER);
    const pending = verify(sets, await appliedMigrations(client));
    for (const { set, migration } of pending) {
      try {
        await client.query(migration.sql);
      } catch (err) {
        throw new MigrationError(`migration ${set}/${migration.id} failed: ${(err as Error).message}`);
      }
      await client.query('insert into parley_migrations (set_name, id, checksum) values ($1, $2, $3)', [
        set,
        migration.id,
        checksum(migration.sql),
      ]);
    }
    await client.query('commit');
    return pending.map((p) => `${p.set}/${p.migration.id}`);
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
