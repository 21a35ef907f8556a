import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collect } from '../testing/helpers.js';
import type { Position } from '../types.js';
import { scanAll } from './scanAll.js';
import { createFakeEsdb } from './testing/createFakeEsdb.js';

function fakeWithLog(size: number, inclusiveReads: boolean) {
  const fake = createFakeEsdb({ inclusiveReads });
  for (let i = 0; i < size; i++) fake.appendSystem(i % 3 === 0 ? '$stats-1' : `s-${i % 4}`, `T${i % 5}`);
  return fake;
}

describe('scanAll', () => {
  it('reads forwards strictly after `after`, each record once, in order, whatever the page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.nat(), { nil: undefined }),
        fc.boolean(),
        async (size, inclusiveReads, pageSize, afterIndex, betweenRecords) => {
          const fake = fakeWithLog(size, inclusiveReads);
          const at =
            afterIndex === undefined || size === 0 ? undefined : fake.log[afterIndex % size]!.position;
          // A checkpoint need not be a record's own position.
          const after: Position | undefined =
            at && betweenRecords ? { commit: at.commit + 1n, prepare: at.prepare + 1n } : at;
          const read = await collect(scanAll(fake.client, { direction: 'forwards', after, pageSize }));
          const expected = fake.log.filter((e) => after === undefined || e.position.commit > after.commit);
          expect(read.map((e) => e.id)).toEqual(expected.map((e) => e.id));
        },
      ),
    );
  });

  it('reads backwards from the end, newest first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 7 }),
        async (size, pageSize) => {
          const fake = fakeWithLog(size, true);
          const read = await collect(scanAll(fake.client, { direction: 'backwards', pageSize }));
          expect(read.map((e) => e.id)).toEqual([...fake.log].reverse().map((e) => e.id));
        },
      ),
    );
  });
});
