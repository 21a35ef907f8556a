import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { makeEvents, uniqueName } from '../testing/helpers.js';
import type { RecordedEvent } from '../types.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

/** An append as part of the caller's own statement: with its writes, all or nothing, one round trip. */
let db: TestDatabase;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
  await db.pool.query('create table caller_rows (id text primary key)');
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const read = async (stream: string): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for await (const e of store.readStream(stream)) events.push(e);
  return events;
};
const rows = async (id: string) =>
  (await db.pool.query('select 1 from caller_rows where id = $1', [id])).rowCount;

/** The caller's row, then the append only when the row was inserted (lateral on it); `fail` aborts after both. */
async function write(id: string, stream: string, count: number, options: { fail?: boolean } = {}) {
  const append = await store.statementAppend(stream, makeEvents(count, 'StatementAppended'));
  const [s, expected, events] = append.values;
  const { rows: answer } = await db.pool.query<{
    inserted: number;
    appended: number;
    revision: string | null;
  }>(
    `with inserted as (insert into caller_rows (id) values ($1) on conflict do nothing returning id),
     appended as (
       select a.next_revision from (select $2::text as stream from inserted) g
       cross join lateral ${append.call({ stream: 'g.stream', expected: '$3', events: '$4' })} a)
     select (select count(*) from inserted)::int as inserted, (select count(*) from appended)::int as appended,
       (select next_revision::text from appended) as revision, 1 / $5::int as fail`,
    [id, s, expected, events, options.fail ? 0 : 1],
  );
  store.notifyAppended();
  return answer[0];
}

describe('statementAppend', () => {
  it('appends with the caller’s row in one statement, revisions as an append’s', async () => {
    const stream = uniqueName('stmt');
    expect(await write(uniqueName('row'), stream, 2)).toEqual({
      inserted: 1,
      appended: 1,
      revision: '1',
      fail: 1,
    });
    expect(await write(uniqueName('row'), stream, 1)).toMatchObject({ appended: 1, revision: '2' });
    expect((await read(stream)).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
  });

  it('is not called when the caller’s condition does not hold', async () => {
    const stream = uniqueName('stmt');
    const id = uniqueName('row');
    await write(id, uniqueName('stmt'), 1);
    expect(await write(id, stream, 1)).toMatchObject({ inserted: 0, appended: 0 });
    expect(await read(stream)).toEqual([]);
  });

  it('writes nothing when the statement fails after it', async () => {
    const stream = uniqueName('stmt');
    const id = uniqueName('row');
    await expect(write(id, stream, 1, { fail: true })).rejects.toMatchObject({ code: '22012' });
    expect(await rows(id)).toBe(0);
    expect(await read(stream)).toEqual([]);
    expect((await db.pool.query('select 1 from streams where stream_id = $1', [stream])).rowCount).toBe(0);
  });

  it('checks its input as append does', async () => {
    await expect(store.statementAppend('', makeEvents(1, 'StatementAppended'))).rejects.toBeInstanceOf(
      TypeError,
    );
    await expect(store.statementAppend(uniqueName('stmt'), [])).rejects.toBeInstanceOf(TypeError);
  });
});
