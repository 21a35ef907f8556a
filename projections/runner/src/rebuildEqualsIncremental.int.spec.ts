import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProjectionRunner } from './createProjectionRunner.js';
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

it('rebuild equals incremental projection (random events, appends, batch sizes)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(tallySpec, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 40 }),
      async (appends, runnerBatch, rebuildBatch) => {
        const table = `tallies_${unique()}`;
        const projection = tallyProjection(`tallies-${unique()}`, table);
        const worker = createProjectionRunner({
          pool: h.db.pool,
          store: h.store,
          projections: [projection],
          batchSize: runnerBatch,
          pollIntervalMs: 20,
        });
        await worker.start();
        try {
          // Appended while the runner runs: its batches fall wherever they fall.
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
        const incremental = await viewRows(h.db.pool, table, 'stream');
        await rebuildProjection({ pool: h.db.pool, store: h.store, projection, batchSize: rebuildBatch });
        expect(await viewRows(h.db.pool, table, 'stream')).toEqual(incremental);
        expect(incremental).toEqual(await expectedRows(h.store, projection, table));
      },
    ),
    { numRuns: 15 },
  );
});
