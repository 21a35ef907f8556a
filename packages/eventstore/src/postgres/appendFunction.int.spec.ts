import type { PoolClient } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { eventually, makeEvents, openSubscription, uniqueName, uniqueType } from '../testing/helpers.js';
import { comparePositions, type RecordedEvent } from '../types.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

/**
 * The one-round-trip append (parley_append, migrations/0002) rested on one claim about PostgreSQL:
 * under READ COMMITTED, each statement of a VOLATILE PL/pgSQL function takes a new snapshot, so a
 * statement that runs after waiting for the stream row's lock sees the commit of the transaction
 * that held it. These tests check that claim against the real database (since migration 0004 the
 * order guard reads the stream row instead, which needs no new snapshot: docs/log.md), then both
 * forms of the append (one event: one plain statement; several: parley_append) under concurrent
 * appenders to one stream.
 */
let db: TestDatabase;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations], { poolMax: 24 });
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, pollIntervalMs: 100 });
  // Takes the stream row (waiting for its lock), then counts the stream's events: in a second
  // statement (the function), or in the same statement (a CTE) for contrast.
  await db.pool.query(`
    create or replace function probe_two_statements(p_stream text) returns bigint
    language plpgsql volatile as $$
    begin
      update streams set revision = revision where stream_id = p_stream;
      return (select count(*) from events where stream_id = p_stream);
    end $$`);
});
afterAll(async () => {
  await store.close();
  await db.close();
});

/** Resolves once some backend waits for a lock while running a query containing `marker`. */
async function untilWaitingOnLock(marker: string): Promise<void> {
  const waiting = await eventually(
    async () =>
      (
        await db.pool.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where wait_event_type = 'Lock' and query like '%' || $1 || '%' and pid <> pg_backend_pid()`,
          [marker],
        )
      ).rows[0]!.n,
    (n) => n > 0,
  );
  expect(waiting).toBeGreaterThan(0);
}

/** Appends one event in an open transaction that holds the stream row until `commit()`. */
async function holdStreamRow(stream: string, type: string) {
  const client: PoolClient = await db.pool.connect();
  await client.query('begin');
  await store.appendWith(client, stream, makeEvents(1, type));
  return {
    async commit() {
      await client.query('commit');
      client.release();
    },
  };
}

describe('READ COMMITTED snapshots inside a PL/pgSQL function', () => {
  it('a statement after the lock wait sees the lock holder’s commit; the same statement does not', async () => {
    const type = uniqueType('Snapshot');
    const stream = uniqueName('snapshot');
    await store.append(stream, makeEvents(1, type));

    // The function: its second statement starts after the wait, with a new snapshot.
    const holder = await holdStreamRow(stream, type);
    const inFunction = db.pool.query<{ n: string }>('select probe_two_statements($1)::text as n', [stream]);
    await untilWaitingOnLock('probe_two_statements');
    await holder.commit();
    expect((await inFunction).rows[0]!.n).toBe('2');

    // One statement: its snapshot was taken before the wait and misses the holder's event.
    const second = await holdStreamRow(stream, type);
    const oneStatement = db.pool.query<{ n: string }>(
      `with taken as (update streams set revision = revision where stream_id = $1 returning 1)
       select (select count(*) from events where stream_id = $1)::text as n from taken`,
      [stream],
    );
    await untilWaitingOnLock('with taken as');
    await second.commit();
    expect((await oneStatement).rows[0]!.n).toBe('2'); // not 3: the second holder's event is missed
  });

  // One event: the plain statement (its text names parley_append_order_conflict); three: parley_append.
  it.each([1, 3])(
    'an append of %i event(s) waiting on the stream row inserts after the holder’s event, in commit order',
    async (size) => {
      const type = uniqueType('Waited');
      const stream = uniqueName('waited');
      await store.append(stream, makeEvents(1, type));
      const holder = await holdStreamRow(stream, type);
      const waiter = store.append(stream, makeEvents(size, type), { expectedRevision: 'stream_exists' });
      await untilWaitingOnLock('parley_append');
      await holder.commit();
      const result = await waiter;
      expect(result.nextRevision).toBe(BigInt(1 + size));
      const rows = await db.pool.query<{ r: string }>(
        `select stream_revision::text as r from events where stream_id = $1 order by transaction_id, position`,
        [stream],
      );
      expect(rows.rows.map((r) => r.r)).toEqual(Array.from({ length: 2 + size }, (_, i) => String(i)));
    },
  );
});

describe('appends under concurrent appenders to one stream', () => {
  // One event per append (the plain statement), then two (parley_append).
  it.each([1, 2])(
    'no gaps, no duplicate revisions, log order = revision order, a follower reads each event once (%i per append)',
    async (size) => {
      const type = uniqueType('Contended');
      const stream = uniqueName('contended');
      const writers = 12;
      const perWriter = 25;
      const total = writers * perWriter * size;
      const revisionsOf = (next: bigint) =>
        Array.from({ length: size }, (_, i) => next - BigInt(size - 1 - i));
      const follower = openSubscription(store, { eventTypes: [type], batchSize: 7 });
      const appended: bigint[] = [];
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < perWriter; i++) {
            // Half the writers retry an exact expected revision, the others append with 'any'.
            if (w % 2 === 0) {
              appended.push(
                ...revisionsOf((await store.append(stream, makeEvents(size, type))).nextRevision),
              );
              continue;
            }
            for (;;) {
              const current = await db.pool.query<{ r: string }>(
                'select revision::text as r from streams where stream_id = $1',
                [stream],
              );
              const expected = current.rows[0] ? BigInt(current.rows[0].r) : ('no_stream' as const);
              try {
                const result = await store.append(stream, makeEvents(size, type), {
                  expectedRevision: expected,
                });
                appended.push(...revisionsOf(result.nextRevision));
                break;
              } catch (err) {
                if ((err as Error).name !== 'WrongExpectedVersionError') throw err;
              }
            }
          }
        }),
      );
      const sorted = [...appended].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      expect(sorted).toEqual(Array.from({ length: total }, (_, i) => BigInt(i)));

      const read: RecordedEvent[] = await follower.take(total, 20_000);
      follower.controller.abort();
      expect(read.map((e) => e.revision)).toEqual(Array.from({ length: total }, (_, i) => BigInt(i)));
      expect(new Set(read.map((e) => e.eventId)).size).toBe(total);
      for (let i = 1; i < read.length; i++) {
        expect(comparePositions(read[i - 1]!.position, read[i]!.position)).toBe(-1);
      }
    },
    60_000,
  );
});

describe('tryAppendAll and readFirstEvents', () => {
  const countOf = async (type: string) =>
    (await db.pool.query<{ n: number }>('select count(*)::int as n from events where type = $1', [type]))
      .rows[0]!.n;

  it('appends to several streams in one call, in order, in one transaction', async () => {
    const type = uniqueType('Many');
    const [a, b] = [uniqueName('many-a'), uniqueName('many-b')];
    await store.append(b, makeEvents(2, type));
    const results = await store.tryAppendAll([
      { stream: a, events: makeEvents(3, type), expectedRevision: 'no_stream' },
      { stream: b, events: makeEvents(1, type), expectedRevision: 1n },
    ]);
    expect(results?.map((r) => r.nextRevision)).toEqual([2n, 2n]);
    expect(results![0]!.position.commit).toBe(results![1]!.position.commit);
    expect(comparePositions(results![0]!.position, results![1]!.position)).toBe(-1);
    const firsts = await store.readFirstEvents([a, b, uniqueName('absent')]);
    expect([...firsts.keys()].sort()).toEqual([a, b].sort());
    expect(firsts.get(a)!.revision).toBe(0n);
  });

  it('writes nothing when an expected revision is refused or an event id is already in the log', async () => {
    const type = uniqueType('ManyRefused');
    const existing = uniqueName('many-existing');
    const recorded = makeEvents(1, type);
    await store.append(existing, recorded);
    const fresh = uniqueName('many-fresh');
    await expect(
      store.tryAppendAll([
        { stream: fresh, events: makeEvents(2, type) },
        { stream: existing, events: makeEvents(1, type), expectedRevision: 'no_stream' },
      ]),
    ).rejects.toMatchObject({ name: 'WrongExpectedVersionError', stream: existing, actual: 0n });
    expect(
      await store.tryAppendAll([
        { stream: fresh, events: makeEvents(2, type) },
        { stream: existing, events: recorded },
      ]),
    ).toBeNull();
    expect(await countOf(type)).toBe(1);
    expect(await store.readFirstEvents([fresh])).toEqual(new Map());
  });
});
