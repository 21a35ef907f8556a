import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Position } from '../types.js';
import { createEventStoreDbEventStore } from './createEventStoreDbEventStore.js';
import { isWanted } from './mapping.js';
import { createScanMemo } from './scanWanted.js';
import { createFakeEsdb } from './testing/createFakeEsdb.js';

const typeArb = fc.constantFrom('A', 'B', 'C', '$sys');
const typesArb = fc.option(fc.subarray(['A', 'B', 'C']), { nil: undefined });
const opArb = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    types: fc.array(typeArb, { minLength: 1, maxLength: 6 }),
  }),
  fc.record({
    kind: fc.constant('read' as const),
    // Few distinct checkpoints and type sets, so that the same poll repeats and meets its memo.
    after: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
    types: typesArb,
    maxCount: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({
    kind: fc.constant('count' as const),
    after: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
    types: typesArb,
    cap: fc.integer({ min: 1, max: 8 }),
  }),
);

describe('readAll and countAfter with the empty-stretch memo', () => {
  it('answer as a plain scan would, while the log grows between calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 30 }),
        fc.integer({ min: 2, max: 5 }),
        async (ops, batchSize) => {
          const fake = createFakeEsdb();
          const store = createEventStoreDbEventStore({ client: fake.client, batchSize });
          const positionAt = (i: number | undefined): Position | undefined =>
            i === undefined || fake.log.length === 0 ? undefined : fake.log[i % fake.log.length]!.position;
          const expected = (after: Position | undefined, types: string[] | undefined) =>
            fake.log.filter(
              (e) =>
                (!after || e.position.commit > after.commit) &&
                isWanted(e, types ? new Set(types) : undefined),
            );
          for (const op of ops) {
            if (op.kind === 'append') {
              for (const type of op.types) {
                if (type === '$sys') fake.appendSystem('$stats', '$statsCollected');
                else await store.append('s', [{ eventId: crypto.randomUUID(), type, data: {} }]);
              }
            } else if (op.kind === 'read') {
              const after = positionAt(op.after);
              const read = await store.readAll({ after, maxCount: op.maxCount, eventTypes: op.types });
              const want = expected(after, op.types).slice(0, op.maxCount);
              expect(read.map((e) => e.eventId)).toEqual(want.map((e) => e.id));
            } else {
              const after = positionAt(op.after);
              const count = await store.countAfter(after, op.types, op.cap);
              expect(count).toBe(Math.min(op.cap, expected(after, op.types).length));
            }
          }
        },
      ),
    );
  });

  it('lets a poller with a rare type read only what is new', async () => {
    const fake = createFakeEsdb();
    const store = createEventStoreDbEventStore({ client: fake.client, batchSize: 10 });
    await store.append(
      's',
      Array.from({ length: 100 }, () => ({ eventId: crypto.randomUUID(), type: 'B', data: {} })),
    );
    expect(await store.readAll({ maxCount: 10, eventTypes: ['A'] })).toEqual([]);
    const afterFirstPoll = fake.recordsRead;
    expect(afterFirstPoll).toBeGreaterThanOrEqual(100);

    await store.append('s', [{ eventId: crypto.randomUUID(), type: 'B', data: {} }]);
    expect(await store.readAll({ maxCount: 10, eventTypes: ['A'] })).toEqual([]);
    // The last record known to be empty (the read starts there, inclusive) and the new one.
    expect(fake.recordsRead - afterFirstPoll).toBe(2);

    const a = await store.append('s', [{ eventId: crypto.randomUUID(), type: 'A', data: {} }]);
    expect((await store.readAll({ maxCount: 10, eventTypes: ['A'] })).map((e) => e.position)).toEqual([
      a.position,
    ]);
  });

  it('forgets the oldest stretches beyond its size', () => {
    const memo = createScanMemo(2);
    const at = (n: bigint): Position => ({ commit: n, prepare: n });
    memo.set(undefined, at(1n), at(10n));
    memo.set(new Set(['A']), at(1n), at(11n));
    memo.set(new Set(['B', 'A']), at(2n), at(12n));
    expect(memo.get(undefined, at(1n))).toBeUndefined();
    expect(memo.get(new Set(['A']), at(1n))).toEqual(at(11n));
    expect(memo.get(new Set(['A', 'B']), at(2n))).toEqual(at(12n));
  });
});
