import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProjectionRunner } from './createProjectionRunner.js';
import type { Projection } from './defineProjection.js';
import { rebuildProjection } from './rebuildProjection.js';
import { tallySpec } from './spec/events.js';
import {
  caughtUp,
  createHarness,
  event,
  expectedRows,
  type Harness,
  unique,
  viewRows,
} from './spec/harness.js';
import { tallyProjection } from './spec/tallyProjection.js';

// Its own file, so its own log: each run's new projection replays only these events.
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

/** Runs the projection while appending: its batches (of `batchSize`) fall wherever they fall. */
async function projectWhileAppending(
  projection: Projection,
  appends: ReadonlyArray<ReadonlyArray<{ type: string; stream: string; data: Record<string, unknown> }>>,
  batchSize: number,
): Promise<void> {
  const worker = createProjectionRunner({
    pool: h.db.pool,
    store: h.store,
    projections: [projection],
    batchSize,
    pollIntervalMs: 20,
  });
  await worker.start();
  try {
    for (const specs of appends) {
      await h.store.append(
        specs[0]!.stream,
        specs.map((s) => event(s.type, s.data)),
      );
    }
    await caughtUp(h, projection);
  } finally {
    await worker.stop();
  }
}

it('rebuild equals incremental projection (random events, appends, batch sizes)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(tallySpec, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 40 }),
      async (appends, runnerBatch, rebuildBatch) => {
        const table = `tallies_${unique()}`;
        const projection = tallyProjection(`tallies-${unique()}`, table);
        await projectWhileAppending(projection, appends, runnerBatch);
        const incremental = await viewRows(h.db.pool, table, 'stream');
        await rebuildProjection({ pool: h.db.pool, store: h.store, projection, batchSize: rebuildBatch });
        expect(await viewRows(h.db.pool, table, 'stream')).toEqual(incremental);
        expect(incremental).toEqual(await expectedRows(h.store, projection, table));
      },
    ),
    { numRuns: 15 },
  );
});

/** The rollup as counted from the rows themselves. */
function countedRollup(rows: Record<string, unknown>[]) {
  const counts = new Map<string, number>();
  for (const row of rows) {
    const sign = Number(row.total) >= 0 ? 'pos' : 'neg';
    for (const group of [`${row.last_type}|${sign}`, `${row.last_type}|any`]) {
      counts.set(group, (counts.get(group) ?? 0) + 1);
    }
  }
  return [...counts].map(([group, n]) => `${group}|${n}`).sort();
}

async function rollupRows(table: string): Promise<string[]> {
  const { rows } = await h.db.pool.query<{ last_type: string; sign: string; n: number }>(
    `select last_type, sign, n from "${table}_r"`,
  );
  return rows.map((r) => `${r.last_type}|${r.sign}|${r.n}`).sort();
}

it('keeps rollups exact: incremental, after a rebuild, through deletes and moves between groups', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(tallySpec, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 40 }),
      async (appends, runnerBatch, rebuildBatch) => {
        const table = `tr_${unique()}`;
        const projection = tallyProjection(`tr-${unique()}`, table, 1, true);
        await projectWhileAppending(projection, appends, runnerBatch);
        const rows = await viewRows(h.db.pool, table, 'stream');
        const incremental = await rollupRows(table);
        expect(incremental).toEqual(countedRollup(rows));
        expect(incremental.every((r) => !r.endsWith('|0'))).toBe(true);
        await rebuildProjection({ pool: h.db.pool, store: h.store, projection, batchSize: rebuildBatch });
        expect(await rollupRows(table)).toEqual(incremental);
      },
    ),
    { numRuns: 15 },
  );
  // Fifteen projections and rebuilds: 11 s alone, 25 s or more beside other spec files on two cores.
}, 90_000);
