import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { describeEventStoreContract } from '../testing/contract.js';
import { collect, eventually, makeEvents, uniqueName, uniqueType } from '../testing/helpers.js';
import { WrongExpectedVersionError } from '../types.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

describeEventStoreContract('postgres', async () => {
  const db: TestDatabase = await createTestDatabase([eventStoreMigrations], { poolMax: 20 });
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, pollIntervalMs: 200 });
  return {
    store,
    teardown: async () => {
      await store.close();
      await db.close();
    },
  };
});

describe('PostgreSQL append details', () => {
  let db: TestDatabase;
  let store: PostgresEventStore;
  const type = uniqueType('Detail');
  beforeAll(async () => {
    db = await createTestDatabase([eventStoreMigrations]);
    store = createPostgresEventStore({ pool: db.pool });
  });
  afterAll(async () => {
    await store.close();
    await db.close();
  });

  const lastPosition = async () =>
    (await db.pool.query<{ v: string }>('select last_value::text as v from events_position_seq')).rows[0]!.v;

  it('spends no sequence number on a refused append', async () => {
    const stream = uniqueName('refused');
    await store.append(stream, makeEvents(2, type));
    const before = await lastPosition();
    await expect(store.append(stream, makeEvents(5, type), { expectedRevision: 0n })).rejects.toBeInstanceOf(
      WrongExpectedVersionError,
    );
    await expect(
      store.append(stream, makeEvents(5, type), { expectedRevision: 'no_stream' }),
    ).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await lastPosition()).toBe(before);
  });

  it('refuses an empty batch, an id twice in one batch and a negative revision before touching the log', async () => {
    const stream = uniqueName('invalid');
    const [event] = makeEvents(1, type);
    await expect(store.append(stream, [])).rejects.toThrow(/at least one event/);
    await expect(
      store.append(stream, [event!, { ...event!, eventId: event!.eventId.toUpperCase() }]),
    ).rejects.toThrow(/appears twice/);
    await expect(store.append(stream, [event!], { expectedRevision: -1n })).rejects.toThrow(/negative/);
    expect(await collect(store.readStream(stream))).toEqual([]);
  });

  it('appendWith leaves the caller’s transaction usable after a refusal, and is idempotent in it', async () => {
    const stream = uniqueName('with');
    const batch = makeEvents(2, type);
    const first = await store.append(stream, batch);
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await expect(
        store.appendWith(client, stream, makeEvents(1, type), { expectedRevision: 'no_stream' }),
      ).rejects.toMatchObject({ actual: 1n });
      expect(await store.appendWith(client, stream, batch)).toEqual(first);
      const next = await store.appendWith(client, stream, makeEvents(1, type), { expectedRevision: 1n });
      expect(next.nextRevision).toBe(2n);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect((await collect(store.readStream(stream))).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
  });

  it('returns every connection it borrowed, also after refusals and errors', async () => {
    const stream = uniqueName('pool');
    await store.append(stream, makeEvents(1, type));
    const attempts = Array.from({ length: 30 }, (_, i) =>
      store.append(stream, i % 3 === 0 ? [{ eventId: 'not-a-uuid', type, data: {} }] : makeEvents(1, type), {
        expectedRevision: i % 3 === 1 ? 100n : 'any',
      }),
    );
    const outcomes = await Promise.allSettled(attempts);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(20);
    // The wake-up notify after the last commits may still hold a connection for a moment.
    const busy = () => Promise.resolve(db.pool.totalCount - db.pool.idleCount + db.pool.waitingCount);
    expect(await eventually(busy, (n) => n === 0, 2_000)).toBe(0);
  });
});
