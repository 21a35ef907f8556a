import { describe, expect, it } from 'vitest';
import {
  comparePositions,
  EventIdConflictError,
  type EventStore,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '../types.js';
import type { ContractCapabilities } from './contract.js';
import { collect, makeEvents, readAllOf, uniqueName, uniqueType } from './helpers.js';

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the append to be refused, it succeeded');
    },
    (err: unknown) => err,
  );
}

async function expectWrongVersion(
  promise: Promise<unknown>,
  stream: string,
  expected: ExpectedRevision,
  actual: bigint | 'no_stream',
): Promise<void> {
  const err = await refusal(promise);
  expect(err).toBeInstanceOf(WrongExpectedVersionError);
  expect(err).toMatchObject({ stream, expected, actual });
}

const revisionsOf = async (store: EventStore, stream: string) =>
  (await collect(store.readStream(stream))).map((e) => e.revision);

export function appendContract(getStore: () => EventStore, capabilities: ContractCapabilities): void {
  const type = uniqueType('Appended');

  describe('append: expected revision', () => {
    it("'no_stream' creates the stream and refuses an existing one, with its actual revision", async () => {
      const store = getStore();
      const stream = uniqueName('no-stream');
      const first = await store.append(stream, makeEvents(2, type), { expectedRevision: 'no_stream' });
      expect(first.nextRevision).toBe(1n);
      await expectWrongVersion(
        store.append(stream, makeEvents(1, type), { expectedRevision: 'no_stream' }),
        stream,
        'no_stream',
        1n,
      );
      expect(await revisionsOf(store, stream)).toEqual([0n, 1n]);
    });

    it('an exact revision appends only when the stream is at it', async () => {
      const store = getStore();
      const stream = uniqueName('exact');
      await expectWrongVersion(
        store.append(stream, makeEvents(1, type), { expectedRevision: 0n }),
        stream,
        0n,
        'no_stream',
      );
      await store.append(stream, makeEvents(1, type), { expectedRevision: 'no_stream' });
      const second = await store.append(stream, makeEvents(3, type), { expectedRevision: 0n });
      expect(second.nextRevision).toBe(3n);
      await expectWrongVersion(
        store.append(stream, makeEvents(1, type), { expectedRevision: 0n }),
        stream,
        0n,
        3n,
      );
      await expectWrongVersion(
        store.append(stream, makeEvents(1, type), { expectedRevision: 4n }),
        stream,
        4n,
        3n,
      );
      const third = await store.append(stream, makeEvents(1, type), { expectedRevision: 3n });
      expect(third.nextRevision).toBe(4n);
      expect(await revisionsOf(store, stream)).toEqual([0n, 1n, 2n, 3n, 4n]);
    });

    it("'stream_exists' appends only to a stream that exists", async () => {
      const store = getStore();
      const stream = uniqueName('exists');
      await expectWrongVersion(
        store.append(stream, makeEvents(1, type), { expectedRevision: 'stream_exists' }),
        stream,
        'stream_exists',
        'no_stream',
      );
      expect(await revisionsOf(store, stream)).toEqual([]);
      await store.append(stream, makeEvents(1, type));
      const next = await store.append(stream, makeEvents(2, type), { expectedRevision: 'stream_exists' });
      expect(next.nextRevision).toBe(2n);
    });

    it("'any' (the default) appends whether or not the stream exists", async () => {
      const store = getStore();
      const stream = uniqueName('any');
      expect((await store.append(stream, makeEvents(1, type))).nextRevision).toBe(0n);
      const next = await store.append(stream, makeEvents(2, type), { expectedRevision: 'any' });
      expect(next.nextRevision).toBe(2n);
      expect(await revisionsOf(store, stream)).toEqual([0n, 1n, 2n]);
    });

    it.each([
      ['an exact revision', 0n],
      ["'no_stream'", 'no_stream'],
    ] as const)('exactly one of many concurrent appends with %s wins', async (_, expected) => {
      const store = getStore();
      const stream = uniqueName('race');
      if (expected === 0n) await store.append(stream, makeEvents(1, type), { expectedRevision: 'no_stream' });
      const before = (await revisionsOf(store, stream)).length;
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, k) =>
          store.append(stream, makeEvents(3, type, { k }), { expectedRevision: expected }),
        ),
      );
      const winners = outcomes.flatMap((o, k) => (o.status === 'fulfilled' ? [k] : []));
      expect(winners).toHaveLength(1);
      for (const o of outcomes) {
        if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedVersionError);
      }
      const events = await collect(store.readStream(stream));
      expect(events).toHaveLength(before + 3);
      expect(events.slice(before).map((e) => e.data.k)).toEqual([winners[0], winners[0], winners[0]]);
    });
  });

  describe('append: idempotent event ids', () => {
    it('appending the same batch again returns the original result and writes nothing', async () => {
      const store = getStore();
      const stream = uniqueName('retry');
      const batch = makeEvents(3, type);
      const first = await store.append(stream, batch, { expectedRevision: 'no_stream' });
      expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);
      await store.append(stream, makeEvents(1, type), { expectedRevision: 2n });
      // A retry whose expected revision no longer matches is still a retry.
      expect(await store.append(stream, batch, { expectedRevision: 'no_stream' })).toEqual(first);
      expect(await store.append(stream, batch, { expectedRevision: 2n })).toEqual(first);
      expect(await store.append(stream, batch)).toEqual(first);
      expect(await revisionsOf(store, stream)).toEqual([0n, 1n, 2n, 3n]);
    });

    it('ids recorded in part, or in another stream, are an EventIdConflictError', async () => {
      const store = getStore();
      const stream = uniqueName('conflict');
      const other = uniqueName('conflict-other');
      const batch = makeEvents(2, type);
      await store.append(stream, batch);
      const [fresh] = makeEvents(1, type);
      const partial = await refusal(store.append(stream, [batch[0]!, fresh!]));
      expect(partial).toBeInstanceOf(EventIdConflictError);
      expect(partial).toMatchObject({ stream, eventIds: [batch[0]!.eventId] });
      expect(await revisionsOf(store, stream)).toEqual([0n, 1n]);
      if (capabilities.uniqueEventIdsAcrossStreams) {
        const elsewhere = await refusal(store.append(other, batch));
        expect(elsewhere).toBeInstanceOf(EventIdConflictError);
        expect(await revisionsOf(store, other)).toEqual([]);
      }
    });
  });

  describe('append: batch sizes', () => {
    it.each([1, 1_000])('%i event(s) in one append are in the stream and in the log, in order', async (n) => {
      const store = getStore();
      const stream = uniqueName(`batch-${n}`);
      const batchType = uniqueType('Batch');
      const batch = makeEvents(n, batchType);
      const result = await store.append(stream, batch, { expectedRevision: 'no_stream' });
      expect(result.nextRevision).toBe(BigInt(n - 1));

      const inStream = await collect(store.readStream(stream));
      expect(inStream.map((e) => e.eventId)).toEqual(batch.map((e) => e.eventId));
      expect(inStream.map((e) => e.revision)).toEqual(batch.map((_, i) => BigInt(i)));
      expect(inStream[0]).toMatchObject({ type: batchType, schemaVersion: 1, stream, data: { i: 0 } });
      expect(inStream[0]?.metadata).toEqual(batch[0]?.metadata);
      expect(inStream[0]?.recordedAt).toBeInstanceOf(Date);

      const inLog = await readAllOf(store, { eventTypes: [batchType], expected: n });
      expect(inLog.map((e) => e.eventId)).toEqual(batch.map((e) => e.eventId));
      for (let i = 1; i < inLog.length; i++) {
        expect(comparePositions(inLog[i - 1]!.position, inLog[i]!.position)).toBe(-1);
      }
      expect(inLog.at(-1)?.position).toEqual(result.position);
    });
  });
}
