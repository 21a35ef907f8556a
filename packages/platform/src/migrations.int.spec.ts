import { describe, expect, it } from 'vitest';
import { MigrationError, migrate, pendingMigrations } from './migrations.js';
import { createTestDatabase } from './testing/index.js';

const setA = {
  name: 'a',
  migrations: [
    { id: '0001_first', sql: 'create table a1 (id int primary key)' },
    { id: '0002_second', sql: 'create table a2 (id int primary key)' },
  ],
};

describe('migrate', () => {
  it('applies pending migrations once, even when processes race', async () => {
    const db = await createTestDatabase();
    try {
      expect(await pendingMigrations(db.pool, [setA])).toEqual(['a/0001_first', 'a/0002_second']);
      const results = await Promise.all([
        migrate(db.pool, [setA]),
        migrate(db.pool, [setA]),
        migrate(db.pool, [setA]),
      ]);
      expect(results.flat().sort()).toEqual(['a/0001_first', 'a/0002_second']);
      expect(await pendingMigrations(db.pool, [setA])).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('refuses a migration edited after it was applied', async () => {
    const db = await createTestDatabase([setA]);
    try {
      const edited = {
        name: 'a',
        migrations: [{ id: '0001_first', sql: 'create table a1 (id bigint primary key)' }],
      };
      await expect(migrate(db.pool, [edited])).rejects.toBeInstanceOf(MigrationError);
    } finally {
      await db.close();
    }
  });

  it('rolls back every migration of a run when one fails', async () => {
    const db = await createTestDatabase();
    try {
      const broken = {
        name: 'b',
        migrations: [
          { id: '0001_ok', sql: 'create table b1 (id int)' },
          { id: '0002_bad', sql: 'create tabel nope' },
        ],
      };
      await expect(migrate(db.pool, [broken])).rejects.toThrow(/b\/0002_bad failed/);
      const { rows } = await db.pool.query(`select to_regclass('b1') is null as gone`);
      expect(rows[0].gone).toBe(true);
    } finally {
      await db.close();
    }
  });
});
