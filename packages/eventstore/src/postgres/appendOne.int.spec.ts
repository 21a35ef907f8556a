import { migrate } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { makeEvents, uniqueName, uniqueType } from '../testing/helpers.js';
import { AppendOrderConflictError } from './append.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

/**
 * Migration 0004 moves the per-stream order guard to the stream row (`last_transaction_id`) and
 * fills it for the streams already in the log: the guard must hold for them as for new ones.
 */
let db: TestDatabase;
let store: PostgresEventStore;
const before0004 = {
  name: eventStoreMigrations.name,
  migrations: eventStoreMigrations.migrations.filter((m) => m.id < '0004'),
};

beforeAll(async () => {
  db = await createTestDatabase([before0004], { poolMax: 8 });
  store = createPostgresEventStore({ pool: db.pool });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

describe('migration 0004 on a log with streams', () => {
  it('fills each stream’s last transaction, and the guard refuses an older transaction after it', async () => {
    const type = uniqueType('Migrated');
    const [a, b] = [uniqueName('migrated-a'), uniqueName('migrated-b')];
    const old = await db.pool.connect();
    try {
      await old.query('begin');
      await old.query('select pg_current_xact_id()'); // older than every append below
      // Before 0004 the log has parley_append only: batches of two go through it.
      await store.append(a, makeEvents(2, type));
      await store.append(a, makeEvents(2, type));
      await store.append(b, makeEvents(2, type));
      expect(await migrate(db.pool, [eventStoreMigrations])).toContain('eventstore/0004_append_one');

      const { rows } = await db.pool.query<{ stream_id: string; same: boolean }>(
        `select s.stream_id, s.last_transaction_id = e.transaction_id as same
         from streams s join events e on e.stream_id = s.stream_id and e.stream_revision = s.revision
         where s.stream_id = any($1) order by s.stream_id`,
        [[a, b]],
      );
      expect(rows).toEqual([
        { stream_id: a, same: true },
        { stream_id: b, same: true },
      ]);
      await expect(store.appendWith(old, a, makeEvents(1, type))).rejects.toBeInstanceOf(
        AppendOrderConflictError,
      );
      await expect(store.appendWith(old, b, makeEvents(3, type))).rejects.toBeInstanceOf(
        AppendOrderConflictError,
      );
    } finally {
      await old.query('rollback');
      old.release();
    }
    const appended = await store.append(a, makeEvents(1, type), { expectedRevision: 3n });
    expect(appended.nextRevision).toBe(4n);
  });
});
