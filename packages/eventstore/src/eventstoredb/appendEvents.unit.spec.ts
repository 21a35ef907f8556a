import { silentLogger } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { EventIdConflictError, type EventToAppend, WrongExpectedVersionError } from '../types.js';
import { appendEvents } from './appendEvents.js';
import { createFakeEsdb, type FakeEsdbOptions } from './testing/createFakeEsdb.js';

const batch = (n: number): EventToAppend[] =>
  Array.from({ length: n }, (_, i) => ({ eventId: crypto.randomUUID(), type: `T${i}`, data: { i } }));

function setup(options: FakeEsdbOptions & { idCheckDepth?: number } = {}) {
  const fake = createFakeEsdb(options);
  const deps = {
    client: fake.client,
    logger: silentLogger(),
    idCheckDepth: options.idCheckDepth ?? Infinity,
  };
  return { fake, append: appendEvents.bind(null, deps) };
}

describe('appendEvents', () => {
  it('writes a new batch and answers with its last revision and position', async () => {
    const { fake, append } = setup();
    const result = await append('s-1', batch(3), 'no_stream');
    const written = fake.streamEvents('s-1');
    expect(written).toHaveLength(3);
    expect(result).toEqual({ nextRevision: 2n, position: written[2]!.position });
    expect(written[0]!.metadata).toEqual({ $schemaVersion: 1 });
  });

  for (const depth of [Infinity, 0]) {
    describe(depth === 0 ? 'without the search before writing' : 'with the search before writing', () => {
      it('treats a retry after the stream moved on as a no-op returning the first answer', async () => {
        const { fake, append } = setup({ idCheckDepth: depth });
        const events = batch(2);
        const first = await append('s-2', events, 'no_stream');
        await append('s-2', batch(1), first.nextRevision);
        const retried = await append('s-2', events, 'no_stream');
        expect(retried).toEqual(first);
        expect(fake.streamEvents('s-2')).toHaveLength(3);
      });

      it('refuses a batch of which only some ids are recorded, writing nothing', async () => {
        const { fake, append } = setup({ idCheckDepth: depth });
        const events = batch(2);
        await append('s-3', events, 'no_stream');
        const mixed = [...batch(1), events[1]!];
        // Without the search the ids are only checked once the server refuses: a stale revision.
        const refused = append('s-3', mixed, depth === 0 ? 0n : 1n);
        await expect(refused).rejects.toBeInstanceOf(EventIdConflictError);
        await expect(refused).rejects.toMatchObject({ eventIds: [events[1]!.eventId] });
        expect(fake.streamEvents('s-3')).toHaveLength(2);
      });

      it('maps a real conflict to WrongExpectedVersionError with the actual revision', async () => {
        const { append } = setup({ idCheckDepth: depth });
        await append('s-4', batch(2), 'any');
        await expect(append('s-4', batch(1), 0n)).rejects.toMatchObject({ expected: 0n, actual: 1n });
        await expect(append('s-5', batch(1), 'stream_exists')).rejects.toMatchObject({ actual: 'no_stream' });
        await expect(append('s-5', batch(1), 3n)).rejects.toBeInstanceOf(WrongExpectedVersionError);
      });
    });
  }

  it('skips the server entirely for a retry found by the search', async () => {
    const { fake, append } = setup();
    const events = batch(2);
    await append('s-6', events, 'any');
    const calls = fake.appendCalls;
    await append('s-6', events, 'any');
    expect(fake.appendCalls).toBe(calls);
  });

  it('finds the position when the server dedupes a batch without sending one', async () => {
    const { fake, append } = setup({ serverDedupe: true, idCheckDepth: 0 });
    await append('s-7', batch(1), 'no_stream');
    const events = batch(2);
    const first = await append('s-7', events, 0n);
    const retried = await append('s-7', events, 0n);
    expect(fake.streamEvents('s-7')).toHaveLength(3);
    expect(retried.position).toEqual(first.position);
  });

  it('handles a client that reports conflicts instead of throwing them', async () => {
    const { append } = setup({ reportFailures: true });
    await append('s-8', batch(1), 'any');
    await expect(append('s-8', batch(1), 'no_stream')).rejects.toMatchObject({ actual: 0n });
  });

  it('refuses, as the PostgreSQL adapter does, ids repeated in a batch, empty batches and negative revisions', async () => {
    const { fake, append } = setup();
    const [event] = batch(1);
    const shouting = { ...event!, eventId: event!.eventId.toUpperCase() };
    await expect(append('s-9', [event!, shouting], 'any')).rejects.toThrow(/appears twice/);
    await expect(append('s-9', [], 'any')).rejects.toBeInstanceOf(TypeError);
    await expect(append('', batch(1), 'any')).rejects.toBeInstanceOf(TypeError);
    await expect(append('s-9', batch(1), -1n)).rejects.toBeInstanceOf(RangeError);
    expect(fake.appendCalls).toBe(0);
  });

  it('finds a retried batch whatever the case of its ids', async () => {
    const { fake, append } = setup();
    const events = batch(2);
    const first = await append('s-10', events, 'any');
    const shouted = events.map((e) => ({ ...e, eventId: e.eventId.toUpperCase() }));
    expect(await append('s-10', shouted, 'any')).toEqual(first);
    expect(fake.streamEvents('s-10')).toHaveLength(2);
  });
});
