import { describe, expect, it } from 'vitest';
import { collect } from '../testing/helpers.js';
import type { EventToAppend, RecordedEvent } from '../types.js';
import { createEventStoreDbEventStore } from './createEventStoreDbEventStore.js';
import { createFakeEsdb } from './testing/createFakeEsdb.js';

const event = (type: string, data: Record<string, unknown> = {}): EventToAppend => ({
  eventId: crypto.randomUUID(),
  type,
  data,
});

/** A log of user events mixed with the system records a real server writes between them. */
async function setup() {
  const fake = createFakeEsdb();
  const store = createEventStoreDbEventStore({
    client: fake.client,
    batchSize: 3,
    upcast: (e) => (e.type === 'Old' ? { ...e, type: 'New', schemaVersion: 2 } : e),
  });
  fake.appendSystem('$stats-1', '$statsCollected');
  const a = await store.append('s-1', [event('A', { n: 1 }), event('B', { n: 2 })], {
    expectedRevision: 'no_stream',
  });
  fake.appendSystem('$ce-s', '$>');
  await store.append('s-2', [event('A', { n: 3 }), event('Old', { n: 4 })]);
  fake.appendSystem('$$s-1', '$metadata');
  return { fake, store, first: a };
}

const numbers = (events: RecordedEvent[]) => events.map((e) => e.data.n);

describe('createEventStoreDbEventStore on the fake client', () => {
  it('readAll returns user events after `after`, of the asked types, up to maxCount, upcast', async () => {
    const { store, first } = await setup();
    expect(numbers(await store.readAll({ maxCount: 10 }))).toEqual([1, 2, 3, 4]);
    expect(numbers(await store.readAll({ maxCount: 2 }))).toEqual([1, 2]);
    expect(numbers(await store.readAll({ after: first.position, maxCount: 10 }))).toEqual([3, 4]);
    expect(numbers(await store.readAll({ maxCount: 10, eventTypes: ['A'] }))).toEqual([1, 3]);
    expect(await store.readAll({ maxCount: 10, eventTypes: [] })).toEqual([]);
    const [upcast] = await store.readAll({ maxCount: 10, eventTypes: ['Old'] });
    expect(upcast).toMatchObject({ type: 'New', schemaVersion: 2, stream: 's-2', revision: 1n });
    await expect(store.readAll({ maxCount: 0 })).rejects.toBeInstanceOf(RangeError);
  });

  it('countAfter counts the same events, up to the cap', async () => {
    const { store, first } = await setup();
    expect(await store.countAfter(undefined, undefined, 100)).toBe(4);
    expect(await store.countAfter(undefined, undefined, 2)).toBe(2);
    expect(await store.countAfter(first.position, ['A', 'Old'], 100)).toBe(2);
    expect(await store.countAfter(undefined, [], 100)).toBe(0);
  });

  it('head is the last user event, past trailing system records', async () => {
    const { fake, store } = await setup();
    const last = fake.streamEvents('s-2')[1]!;
    expect(await store.head()).toEqual({ position: last.position, recordedAt: last.created });
    expect(await createEventStoreDbEventStore({ client: createFakeEsdb().client }).head()).toBeNull();
  });

  it('readStream reads either way from a revision, and a missing stream as empty', async () => {
    const { store } = await setup();
    expect(numbers(await collect(store.readStream('s-1')))).toEqual([1, 2]);
    expect(numbers(await collect(store.readStream('s-1', { direction: 'backwards' })))).toEqual([2, 1]);
    expect(numbers(await collect(store.readStream('s-1', { fromRevision: 1n })))).toEqual([2]);
    expect(numbers(await collect(store.readStream('s-1', { maxCount: 1 })))).toEqual([1]);
    expect(await collect(store.readStream('missing'))).toEqual([]);
  });

  it('subscribeAll catches up, goes live, filters, and ends when its signal aborts', async () => {
    const { fake, store, first } = await setup();
    const controller = new AbortController();
    const seen: RecordedEvent[] = [];
    const done = (async () => {
      for await (const e of store.subscribeAll({
        after: first.position,
        eventTypes: ['A'],
        signal: controller.signal,
      })) {
        seen.push(e);
        if (seen.length === 2) controller.abort();
      }
    })();
    await store.append('s-3', [event('B', { n: 5 }), event('A', { n: 6 })]);
    fake.appendSystem('$ce-s', '$>');
    await done;
    expect(numbers(seen)).toEqual([3, 6]);
    expect(fake.openSubscriptions()).toBe(0);
  });

  it('subscribeAll ends when aborted while waiting, and when the store closes', async () => {
    const { fake, store } = await setup();
    const controller = new AbortController();
    const waiting = collect(
      store.subscribeAll({ after: (await store.head())!.position, signal: controller.signal }),
    );
    const open = collect(store.subscribeAll());
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await waiting).toEqual([]);
    await store.close();
    expect(numbers(await open)).toEqual([1, 2, 3, 4]);
    expect(fake.openSubscriptions()).toBe(0);
    expect(() => store.subscribeAll()).toThrow(/closed/);
  });
});
