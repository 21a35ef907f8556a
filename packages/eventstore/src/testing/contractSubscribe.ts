import { describe, expect, it } from 'vitest';
import { type EventStore, type RecordedEvent, START } from '../types.js';
import { makeEvents, openSubscription, uniqueName, uniqueType } from './helpers.js';

export function subscribeContract(getStore: () => EventStore): void {
  describe('subscribeAll', () => {
    it('catches up, then delivers new events live, then ends cleanly on abort', async () => {
      const store = getStore();
      const type = uniqueType('Live');
      const stream = uniqueName('live');
      const early = makeEvents(3, type);
      await store.append(stream, early);
      const sub = openSubscription(store, { after: START, eventTypes: [type], batchSize: 2 });
      expect((await sub.take(3)).map((e) => e.eventId)).toEqual(early.map((e) => e.eventId));

      const late = makeEvents(2, type);
      await store.append(uniqueName('live-other'), late.slice(0, 1));
      await store.append(stream, late.slice(1));
      expect((await sub.take(2)).map((e) => e.eventId)).toEqual(late.map((e) => e.eventId));

      const pending = sub.next();
      sub.controller.abort();
      expect(await pending).toEqual({ done: true, value: undefined });
    });

    it('resumes after a checkpoint with exactly the events after it', async () => {
      const store = getStore();
      const type = uniqueType('Resume');
      const batch = makeEvents(5, type);
      await store.append(uniqueName('resume'), batch);
      const first = openSubscription(store, { eventTypes: [type] });
      const seen = await first.take(2);
      first.controller.abort();

      const resumed = openSubscription(store, { after: seen[1]!.position, eventTypes: [type] });
      expect((await resumed.take(3)).map((e) => e.eventId)).toEqual(batch.slice(2).map((e) => e.eventId));
      const more = resumed.next(300).catch((err: Error) => err.message);
      expect(await more).toMatch(/no event within/);
      resumed.controller.abort();
    });

    it('yields nothing when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const events: RecordedEvent[] = [];
      for await (const e of getStore().subscribeAll({ after: START, signal: controller.signal }))
        events.push(e);
      expect(events).toEqual([]);
    });
  });
}
