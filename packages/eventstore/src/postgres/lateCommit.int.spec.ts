import type { PoolClient } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { makeEvents, readAllOf, sleep, uniqueName, uniqueType } from '../testing/helpers.js';
import { type AppendStep, checkConcurrentAppendsReadOnce } from '../testing/logProperty.js';
import { comparePositions, type EventToAppend, type ExpectedRevision, type Position } from '../types.js';
import { AppendOrderConflictError } from './append.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

let db: TestDatabase;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations], { poolMax: 24 });
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, pollIntervalMs: 100 });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

/**
 * Transactions a test opened and has not ended: rolled back after each test. One left open (a failed
 * expectation before its end) would hold back every log reader of the PostgreSQL cluster, other spec
 * files' too, until this file's process exits.
 */
const unended = new Set<(how: 'commit' | 'rollback') => Promise<void>>();
afterEach(async () => {
  for (const end of [...unended]) await end('rollback');
});

/** A transaction held open by the test: begin now, append, commit when told. */
async function openTransaction(options: { takeIdFirst?: boolean } = {}) {
  const client: PoolClient = await db.pool.connect();
  let open = true;
  await client.query('begin');
  unended.add(end);
  // Assigns this transaction its id now, before any later transaction's.
  if (options.takeIdFirst) await client.query('select pg_current_xact_id()');
  return {
    append: (stream: string, events: EventToAppend[], expectedRevision: ExpectedRevision = 'any') =>
      store.appendWith(client, stream, events, { expectedRevision }),
    end,
  };
  async function end(how: 'commit' | 'rollback') {
    if (!open) return;
    open = false;
    unended.delete(end);
    try {
      await client.query(how);
      if (how === 'commit') store.notifyAppended();
    } finally {
      client.release();
    }
  }
}

const ids = (events: readonly { eventId: string }[]) => events.map((e) => e.eventId);

describe('a transaction that commits late', () => {
  it('is read after the reader passed later positions, not skipped', async () => {
    const type = uniqueType('Late');
    const early = await openTransaction({ takeIdFirst: true });
    const slow = await openTransaction();
    const slowEvents = makeEvents(3, type);
    const slowResult = await slow.append(uniqueName('slow'), slowEvents); // takes its positions first
    const fastEvents = makeEvents(3, type);
    await early.append(uniqueName('fast'), fastEvents); // later positions, older transaction
    await early.end('commit');

    const firstRead = await readAllOf(store, { eventTypes: [type], expected: 3 });
    expect(ids(firstRead)).toEqual(ids(fastEvents));
    const checkpoint: Position = firstRead.at(-1)!.position;
    // A reader checkpointing on the sequence alone would now skip the slow events.
    expect(slowResult.position.prepare).toBeLessThan(checkpoint.prepare);
    expect(await store.readAll({ after: checkpoint, maxCount: 10, eventTypes: [type] })).toEqual([]);

    await slow.end('commit');
    const afterCommit = await readAllOf(store, { after: checkpoint, eventTypes: [type], expected: 3 });
    expect(ids(afterCommit)).toEqual(ids(slowEvents));
  });

  it('holds back later transactions until it commits, then comes first', async () => {
    const type = uniqueType('Held');
    const slow = await openTransaction({ takeIdFirst: true });
    const slowEvents = makeEvents(2, type);
    const fastEvents = makeEvents(2, type);
    await store.append(uniqueName('fast'), fastEvents);
    await slow.append(uniqueName('slow'), slowEvents);
    await sleep(150);
    expect(await store.readAll({ maxCount: 10, eventTypes: [type] })).toEqual([]);
    expect(await store.countAfter(undefined, [type], 10)).toBe(0);

    await slow.end('commit');
    const read = await readAllOf(store, { eventTypes: [type], expected: 4 });
    expect(ids(read)).toEqual([...ids(slowEvents), ...ids(fastEvents)]);
  });

  it('a rolled-back transaction leaves no trace and releases the readers', async () => {
    const type = uniqueType('RolledBack');
    const slow = await openTransaction({ takeIdFirst: true });
    await slow.append(uniqueName('slow'), makeEvents(2, type));
    const fastEvents = makeEvents(1, type);
    await store.append(uniqueName('fast'), fastEvents);
    await slow.end('rollback');
    expect(ids(await readAllOf(store, { eventTypes: [type], expected: 1 }))).toEqual(ids(fastEvents));
  });
});

describe('per-stream order in the log', () => {
  // One event is one plain statement, several a call of parley_append: each path checks the guard
  // the other left on the stream row.
  it.each([
    [1, 1],
    [3, 1],
    [1, 3],
    [3, 3],
  ])(
    'refuses an append whose transaction predates the stream’s last one, and the retry lands in order (%i then %i events)',
    async (firstSize, secondSize) => {
      const type = uniqueType('Ordered');
      const stream = uniqueName('ordered');
      const old = await openTransaction({ takeIdFirst: true });
      const first = makeEvents(firstSize, type);
      await store.append(stream, first);
      const second = makeEvents(secondSize, type);
      await expect(old.append(stream, second)).rejects.toBeInstanceOf(AppendOrderConflictError);
      await old.end('commit'); // still usable: the refusal rolled back to its savepoint

      const retry = await openTransaction();
      const result = await retry.append(stream, second);
      await retry.end('commit');
      expect(result.nextRevision).toBe(BigInt(firstSize + secondSize - 1));
      const read = await readAllOf(store, { eventTypes: [type], expected: firstSize + secondSize });
      expect(ids(read)).toEqual([...ids(first), ...ids(second)]);
      for (let i = 1; i < read.length; i++) {
        expect(comparePositions(read[i - 1]!.position, read[i]!.position)).toBe(-1);
      }
    },
  );
});

/**
 * Variants 0-5 append in their own short transaction; 6-7 hold their
 * transaction open a while after appending; 8-9 take their transaction id
 * first, wait, append, wait, then commit (a slow transaction that commits last).
 */
async function appendMaybeSlowly(step: AppendStep): Promise<void> {
  if (step.variant < 6) {
    await store.append(step.stream, step.events, { expectedRevision: step.expectedRevision });
    return;
  }
  for (;;) {
    const tx = await openTransaction({ takeIdFirst: step.variant >= 8 });
    try {
      if (step.variant >= 8) await sleep(step.variant * 2);
      await tx.append(step.stream, step.events, step.expectedRevision);
      await sleep(step.variant * 3);
      await tx.end('commit');
      return;
    } catch (err) {
      await tx.end('rollback');
      if (!(err instanceof AppendOrderConflictError)) throw err;
    }
  }
}

describe('the log under concurrent appends with slow transactions', () => {
  it('every acknowledged event is read exactly once, each stream in order', async () => {
    await checkConcurrentAppendsReadOnce({ store, append: appendMaybeSlowly, numRuns: 25 });
  }, 90_000);
});
