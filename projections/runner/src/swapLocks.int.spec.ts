import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureProjection } from './ensureProjection.js';
import { rebuildProjection } from './rebuildProjection.js';
import { createHarness, event, eventually, type Harness, unique } from './spec/harness.js';
import { tallyProjection } from './spec/tallyProjection.js';

let h: Harness;
let reader: pg.Client;
beforeAll(async () => {
  h = await createHarness();
  reader = new pg.Client({ connectionString: h.db.url });
  await reader.connect();
});
afterAll(async () => {
  await reader.end();
  await h.close();
});

/** Whether another session holds (granted) an ACCESS EXCLUSIVE lock on `relation`. */
async function heldExclusively(relation: string): Promise<boolean> {
  const { rows } = await h.db.pool.query<{ n: number }>(
    `select count(*)::int as n from pg_locks
      where relation = to_regclass($1) and mode = 'AccessExclusiveLock' and granted`,
    [relation],
  );
  return (rows[0]?.n ?? 0) > 0;
}

describe('a rebuild swapping views under reads', () => {
  it('never deadlocks a read that takes the views in the other order', async () => {
    // Two views (a table and its rollup): the swap replaces them in that order.
    const table = `tallies_${unique()}`;
    const projection = tallyProjection(`tallies-${unique()}`, table, 1, true);
    await ensureProjection(h.db.pool, projection);
    await h.store.append(`s-${unique()}`, [event('Added', { amount: 3 })]);

    // A read (one transaction, as a repeatable-read page) that has the rollup view and will want the table's.
    await reader.query('begin isolation level repeatable read read only');
    await reader.query(`select * from "${table}_r"`);
    const rebuild = rebuildProjection({ pool: h.db.pool, store: h.store, projection }).then(
      (result) => result,
      (err: { code?: string }) => err.code ?? 'error',
    );
    const swapping = await eventually(
      () => heldExclusively(table),
      (held) => held,
      30_000,
    );
    expect(swapping).toBe(true);
    // Now the read wants the view the swap holds, while the swap waits for the one the read holds.
    const read = reader.query(`select * from "${table}"`).then(
      () => null,
      (err: { code?: string }) => err.code ?? 'error',
    );
    expect(await read).toBeNull();
    await reader.query('commit');
    expect(await rebuild).toMatchObject({ generation: 2 });
  }, 60_000);
});
