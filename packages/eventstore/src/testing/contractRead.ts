import { describe, expect, it } from 'vitest';
import {
  comparePositions,
  type EventStore,
  type ReadStreamOptions,
  type RecordedEvent,
  START,
} from '../types.js';
import { collect, eventually, makeEvents, readAllOf, uniqueName, uniqueType } from './helpers.js';

export function readContract(getStore: () => EventStore): void {
  describe('readStream', () => {
    const revisions = async (stream: string, options?: ReadStreamOptions) =>
      (await collect(getStore().readStream(stream, options))).map((e) => Number(e.revision));
    const range = (from: number, to: number, step = 1) =>
      Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

    it('reads forwards and backwards, from a revision, at most maxCount', async () => {
      const stream = uniqueName('read');
      await getStore().append(stream, makeEvents(6, uniqueType('Read')));
      expect(await revisions(stream)).toEqual(range(0, 5));
      expect(await revisions(stream, { fromRevision: 2n })).toEqual(range(2, 5));
      expect(await revisions(stream, { maxCount: 2 })).toEqual([0, 1]);
      expect(await revisions(stream, { fromRevision: 3n, maxCount: 2 })).toEqual([3, 4]);
      expect(await revisions(stream, { direction: 'backwards' })).toEqual(range(0, 5).reverse());
      expect(await revisions(stream, { direction: 'backwards', fromRevision: 3n })).toEqual([3, 2, 1, 0]);
      expect(await revisions(stream, { direction: 'backwards', maxCount: 1 })).toEqual([5]);
      expect(await revisions(stream, { direction: 'backwards', fromRevision: 1n, maxCount: 5 })).toEqual([
        1, 0,
      ]);
    });

    it('pages through a long stream both ways', async () => {
      const stream = uniqueName('long');
      await getStore().append(stream, makeEvents(1_100, uniqueType('Long')));
      expect(await revisions(stream)).toEqual(range(0, 1_099));
      expect(await revisions(stream, { direction: 'backwards' })).toEqual(range(0, 1_099).reverse());
      expect(
        await revisions(stream, { direction: 'backwards', fromRevision: 1_050n, maxCount: 700 }),
      ).toEqual(range(351, 1_050).reverse());
    });

    it('yields nothing for a missing stream or past the end', async () => {
      const missing = uniqueName('missing');
      expect(await revisions(missing)).toEqual([]);
      expect(await revisions(missing, { direction: 'backwards' })).toEqual([]);
      const stream = uniqueName('short');
      await getStore().append(stream, makeEvents(2, uniqueType('Short')));
      expect(await revisions(stream, { fromRevision: 2n })).toEqual([]);
      expect(await revisions(stream, { fromRevision: 10n })).toEqual([]);
    });
  });

  describe('readAll', () => {
    it('returns events after a checkpoint in log order, filtered by type, at most maxCount', async () => {
      const store = getStore();
      const [a, b, c] = [uniqueType('A'), uniqueType('B'), uniqueType('C')];
      const streams = [uniqueName('all-1'), uniqueName('all-2'), uniqueName('all-3')];
      const appended: string[] = [];
      for (let i = 0; i < 9; i++) {
        const batch = makeEvents(1 + (i % 3), [a, b, c][i % 3]!, { i });
        await store.append(streams[(i * 2) % 3]!, batch);
        appended.push(...batch.filter((e) => e.type !== b).map((e) => e.eventId));
      }
      const read = await readAllOf(store, { eventTypes: [a, c], expected: appended.length });
      expect(read.map((e) => e.eventId)).toEqual(appended);
      for (let i = 1; i < read.length; i++) {
        expect(comparePositions(read[i - 1]!.position, read[i]!.position)).toBe(-1);
      }

      const checkpoint = read[4]!.position;
      const rest = await readAllOf(store, {
        after: checkpoint,
        eventTypes: [a, c],
        expected: appended.length - 5,
      });
      expect(rest.map((e) => e.eventId)).toEqual(appended.slice(5));
      expect(await store.readAll({ after: read.at(-1)!.position, maxCount: 10, eventTypes: [a, c] })).toEqual(
        [],
      );

      const firstTwo = await store.readAll({ after: START, maxCount: 2, eventTypes: [c, a, c] });
      expect(firstTwo.map((e) => e.eventId)).toEqual(appended.slice(0, 2));
      expect(await store.readAll({ maxCount: 10, eventTypes: [] })).toEqual([]);
    });

    it('reads the whole log without a type filter', async () => {
      const store = getStore();
      const type = uniqueType('Unfiltered');
      const stream = uniqueName('unfiltered');
      const before = await store.head();
      const batch = makeEvents(3, type);
      await store.append(stream, batch);
      // Unfiltered, the reader also meets whatever else is being appended to a shared log.
      let after = before?.position;
      const read: RecordedEvent[] = [];
      await eventually(
        async () => {
          const page = await store.readAll({ ...(after ? { after } : {}), maxCount: 1_000 });
          after = page.at(-1)?.position ?? after;
          read.push(...page.filter((e) => e.type === type));
          return read.length;
        },
        (n) => n >= 3,
      );
      expect(read.map((e) => e.eventId)).toEqual(batch.map((e) => e.eventId));
    });
  });

  describe('head and countAfter', () => {
    it('count events after a position, capped, and know the last one', async () => {
      const store = getStore();
      const type = uniqueType('Counted');
      const stream = uniqueName('counted');
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await store.append(stream, makeEvents(1, type)));
      const last = results.at(-1)!.position;
      const head = await eventually(
        () => store.head(),
        (h) => h !== null && comparePositions(h.position, last) >= 0,
      );
      expect(head && comparePositions(head.position, last)).toBeGreaterThanOrEqual(0);
      expect(head?.recordedAt).toBeInstanceOf(Date);
      expect(
        await eventually(
          () => store.countAfter(START, [type], 100),
          (n) => n === 5,
        ),
      ).toBe(5);
      expect(await store.countAfter(undefined, [type], 3)).toBe(3);
      expect(await store.countAfter(results[1]!.position, [type], 100)).toBe(3);
      expect(await store.countAfter(last, [type], 100)).toBe(0);
      expect(await store.countAfter(START, [], 100)).toBe(0);
      expect(await store.countAfter(results[3]!.position, undefined, 1)).toBe(1);
    });
  });
}
