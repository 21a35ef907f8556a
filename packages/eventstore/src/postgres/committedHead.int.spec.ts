import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { eventually, makeEvents, uniqueName } from '../testing/helpers.js';
import { comparePositions } from '../types.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

/**
 * head({ committed: true }) is what `parley replay` waits for: an append committed while an older
 * transaction of the cluster is open is not readable yet (docs/log.md), and head() does not show it.
 */
let db: TestDatabase;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
  store = createPostgresEventStore({ pool: db.pool, pollIntervalMs: 100 });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

it('shows a committed append that readers cannot see yet, and head() catches up once it settles', async () => {
  const first = await store.append(uniqueName('before'), makeEvents(1, 'test.committed'));
  const before = await eventually(
    () => store.head(),
    (head) => head !== null && comparePositions(head.position, first.position) === 0,
  );
  expect(before?.position).toEqual(first.position);
  // An older transaction that holds an id: every later commit waits behind it for readers.
  const blocker = await db.pool.connect();
  try {
    await blocker.query('begin');
    await blocker.query('select pg_current_xact_id()');
    const { position } = await store.append(uniqueName('after'), makeEvents(2, 'test.committed'));

    // (The head may trail further while other databases of the cluster have transactions open.)
    const seen = await store.head();
    expect(seen && before && comparePositions(seen.position, before.position)).toBeLessThanOrEqual(0);
    expect((await store.head({ committed: true }))?.position).toEqual(position);
    expect(await store.readAll({ after: before?.position, maxCount: 10 })).toEqual([]);

    await blocker.query('commit');
    const visible = await eventually(
      () => store.head(),
      (head) => head !== null && comparePositions(head.position, position) === 0,
    );
    expect(visible?.position).toEqual(position);
    expect(await store.readAll({ after: before?.position, maxCount: 10 })).toHaveLength(2);
  } finally {
    await blocker.query('rollback').catch(() => {});
    blocker.release();
  }
});
