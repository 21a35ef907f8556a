import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { makeEvents, uniqueName } from '../testing/helpers.js';
import { assertLogNotAhead, LogAheadOfClusterError } from './assertLogNotAhead.js';
import { createPostgresEventStore } from './createPostgresEventStore.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
});
afterAll(() => db.close());

describe('a log whose transaction ids are ahead of the cluster', () => {
  it('passes on an empty log and on a log this cluster wrote', async () => {
    await expect(assertLogNotAhead(db.pool)).resolves.toBeUndefined();
    const store = createPostgresEventStore({ pool: db.pool });
    await store.append(uniqueName('normal'), makeEvents(2, 'Normal'));
    await expect(assertLogNotAhead(db.pool)).resolves.toBeUndefined();
    await store.close();
  });

  it('is refused, with the remedy, once an event carries a transaction id the cluster has not reached', async () => {
    const { rows } = await db.pool.query<{ next: string }>(
      'select pg_snapshot_xmax(pg_current_snapshot())::text as next',
    );
    // As after pg_restore of a log written by a cluster two epochs further on.
    const forged = BigInt(rows[0]!.next) + (2n << 32n);
    await db.pool.query(
      `insert into events (transaction_id, stream_id, stream_revision, event_id, type, data)
       values ($1::xid8, $2, 0, gen_random_uuid(), 'Restored', '{}')`,
      [String(forged), uniqueName('restored')],
    );

    const refusal = await assertLogNotAhead(db.pool).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(LogAheadOfClusterError);
    expect(refusal).toMatchObject({ storedTransactionId: forged });
    expect((refusal as Error).message).toContain(`pg_resetwal --epoch=${(forged >> 32n) + 1n}`);

    const store = createPostgresEventStore({ pool: db.pool });
    await expect(store.readAll({ maxCount: 10 })).rejects.toBeInstanceOf(LogAheadOfClusterError);
    await expect(store.append(uniqueName('new'), makeEvents(1, 'New'))).rejects.toBeInstanceOf(
      LogAheadOfClusterError,
    );
    await expect(store.head()).rejects.toBeInstanceOf(LogAheadOfClusterError);
    await store.close();
  });
});
