import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import {
  eventually,
  makeEvents,
  openSubscription,
  sleep,
  uniqueName,
  uniqueType,
} from '../testing/helpers.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

let db: TestDatabase;
// Appends come from a store of their own: only LISTEN or polling can wake the readers' stores.
let writer: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
  writer = createPostgresEventStore({ pool: db.pool });
});
afterAll(async () => {
  await writer.close();
  await db.close();
});

/** The LISTEN sessions of this database (pg-listen's last query is LISTEN or its periodic check). */
const listeners = async () =>
  (
    await db.pool.query<{ pid: number }>(
      `select pid from pg_stat_activity
       where datname = current_database() and application_name = 'parley-log-listener'
         and (query ilike 'listen%' or query ilike 'select pg_backend_pid()%')`,
    )
  ).rows.map((r) => r.pid);

/** Appends once the subscriber is idle (caught up, waiting), and measures until it has the event. */
async function timeToDeliver(sub: ReturnType<typeof openSubscription>, type: string, timeoutMs = 10_000) {
  const delivered = sub.take(1, timeoutMs);
  await sleep(100);
  const started = performance.now();
  await writer.append(uniqueName('woken'), makeEvents(1, type));
  expect(await delivered).toHaveLength(1);
  return performance.now() - started;
}

describe('wake-ups', () => {
  it('wake a live subscriber well within the poll interval, also after LISTEN reconnects', async () => {
    const reader = createPostgresEventStore({
      pool: db.pool,
      connectionString: db.url,
      pollIntervalMs: 10_000,
    });
    const type = uniqueType('Woken');
    const sub = openSubscription(reader, { eventTypes: [type] });
    try {
      const [pid] = await eventually(listeners, (pids) => pids.length === 1);
      expect(pid).toBeDefined();
      expect(await timeToDeliver(sub, type)).toBeLessThan(2_000);

      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      const [reconnected] = await eventually(listeners, (pids) => pids.length === 1 && pids[0] !== pid);
      expect(reconnected).not.toBe(pid);
      expect(await timeToDeliver(sub, type)).toBeLessThan(2_000);
    } finally {
      sub.controller.abort();
      await reader.close();
    }
  });

  it('one LISTEN connection serves every subscriber of a store', async () => {
    const reader = createPostgresEventStore({
      pool: db.pool,
      connectionString: db.url,
      pollIntervalMs: 10_000,
    });
    const type = uniqueType('Shared');
    const subs = [0, 1, 2].map(() => openSubscription(reader, { eventTypes: [type] }));
    try {
      await eventually(listeners, (pids) => pids.length === 1);
      const delivering = Promise.all(subs.map((s) => s.take(1, 2_000)));
      await sleep(100);
      await writer.append(uniqueName('shared'), makeEvents(1, type));
      const delivered = await delivering;
      expect(delivered.map((d) => d.length)).toEqual([1, 1, 1]);
      expect(await listeners()).toHaveLength(1);
    } finally {
      for (const s of subs) s.controller.abort();
      await reader.close();
    }
    expect(await eventually(listeners, (pids) => pids.length === 0)).toEqual([]);
  });

  it('without LISTEN, subscribers keep receiving events by polling', async () => {
    const reader = createPostgresEventStore({
      pool: db.pool,
      connectionString: 'postgres://postgres@127.0.0.1:1/nowhere',
      pollIntervalMs: 200,
    });
    const type = uniqueType('Polled');
    const sub = openSubscription(reader, { eventTypes: [type] });
    try {
      for (let i = 0; i < 3; i++) expect(await timeToDeliver(sub, type, 3_000)).toBeLessThan(3_000);
    } finally {
      sub.controller.abort();
      await reader.close();
    }
  });

  it('a subscriber in the appending process is woken without a round trip through PostgreSQL', async () => {
    const local = createPostgresEventStore({
      pool: db.pool,
      connectionString: 'postgres://postgres@127.0.0.1:1/nowhere',
      pollIntervalMs: 10_000,
    });
    const type = uniqueType('Local');
    const sub = openSubscription(local, { eventTypes: [type] });
    try {
      const delivered = sub.take(1, 2_000);
      await sleep(100);
      const started = performance.now();
      await local.append(uniqueName('local'), makeEvents(1, type));
      expect(await delivered).toHaveLength(1);
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      sub.controller.abort();
      await local.close();
    }
  });

  it('come bare from store.wakeups(): an append of another store wakes a waiter, without a read', async () => {
    const reader = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
    try {
      const wakeups = reader.wakeups?.();
      expect(wakeups).toBeDefined();
      if (!wakeups) return;
      await eventually(listeners, (pids) => pids.length >= 1);
      const seen = wakeups.generation();
      const woken = wakeups.wait(seen, 10_000, new AbortController().signal);
      await writer.append(uniqueName('bare'), makeEvents(1, uniqueType('Bare')));
      expect(await woken).toBe('woken');
      expect(wakeups.generation()).not.toBe(seen);
    } finally {
      await reader.close();
    }
  });
});
