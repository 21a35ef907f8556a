import { createPostgresEventStore, eventStoreMigrations, type PostgresEventStore } from '@parley/eventstore';
import { createPool, migrate, type Pool } from '@parley/platform';
import { type PrivatePostgres, startPrivatePostgres } from '@parley/platform/testing/privatePostgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectionRunner } from './createProjectionRunner.js';
import { projectionRunnerMigrations } from './migrations.js';
import { event, eventually, freshTally, sleep, unique } from './spec/harness.js';

// A private cluster: the test stops it, which it must never do to the machine's shared one.
let pg: PrivatePostgres;
let pool: Pool;
let store: PostgresEventStore;
beforeAll(async () => {
  pg = await startPrivatePostgres();
  pool = createPool({ connectionString: pg.url, max: 10 });
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations]);
  store = createPostgresEventStore({ pool, connectionString: pg.url, pollIntervalMs: 50 });
});
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await pg?.destroy();
});

const total = async (table: string): Promise<number | null> => {
  const { rows } = await pool.query<{ n: number }>(
    `select coalesce(sum(total), 0)::int as n from "${table}"`,
  );
  return rows[0]?.n ?? null;
};

/** Appends once the database answers again (the store's pool reconnects by itself). */
async function appendWhenBack(stream: string, amount: number): Promise<void> {
  for (;;) {
    try {
      await store.append(stream, [event('Added', { amount })]);
      return;
    } catch {
      await sleep(50);
    }
  }
}

describe('the projection runner across a database outage', () => {
  it('writes again within seconds of the return, however long the outage grew its backoff', async () => {
    const { table, projection } = freshTally();
    // The production backoff (250 ms doubling to 30 s): over a 9 s outage it grows past 8 s.
    const runner = createProjectionRunner({ pool, store, projections: [projection], pollIntervalMs: 50 });
    await runner.start();
    try {
      await store.append(`s-${unique()}`, [event('Added', { amount: 1 })]);
      expect(
        await eventually(
          () => total(table),
          (n) => n === 1,
        ),
      ).toBe(1);

      await pg.stop();
      await sleep(9_000);
      await pg.start();
      const back = Date.now();
      await appendWhenBack(`s-${unique()}`, 2);
      const seen = await eventually(
        () => total(table).catch(() => null),
        (n) => n === 3,
        15_000,
      );
      expect(seen).toBe(3);
      expect(Date.now() - back).toBeLessThan(5_000);
    } finally {
      await runner.stop();
    }
  }, 90_000);
});
