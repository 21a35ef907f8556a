import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoalescedNotify } from './coalescedNotify.js';
import { silentLogger } from './logger.js';
import { createTestDatabase, type TestDatabase } from './testing/database.js';

/** Wake-ups after the writer's commit, coalesced per interval, against the real server's LISTEN. */
let db: TestDatabase;
let listener: pg.Client;
const CHANNEL = 'coalesced_notify_test';
/** Each notification as received, with what the listener's query found committed then. */
const received: Array<{ payload: string; rows: number }> = [];
let reading = Promise.resolve();

beforeAll(async () => {
  db = await createTestDatabase([]);
  await db.pool.query('create table writes (id int primary key)');
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  const reader = new pg.Client({ connectionString: db.url });
  await reader.connect();
  listener.on('notification', (n) => {
    reading = reading.then(async () => {
      const { rows } = await reader.query<{ n: number }>('select count(*)::int as n from writes');
      received.push({ payload: n.payload ?? '', rows: rows[0]?.n ?? 0 });
    });
  });
  await listener.query(`listen ${CHANNEL}`);
  afterAll(() => reader.end());
});
afterAll(async () => {
  await listener?.end();
  await db?.close();
});

/** Counts the notifier's statements (the pool is the real one; only counted). */
function countingPool() {
  let statements = 0;
  const pool = {
    query: (text: string, values?: unknown[]) => {
      statements += 1;
      return db.pool.query(text, values);
    },
  };
  return { pool, statements: () => statements };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe('createCoalescedNotify', () => {
  it('notifies after the commit it follows: the listener reads the committed row', async () => {
    received.length = 0;
    const notifier = createCoalescedNotify({ pool: db.pool, channel: CHANNEL, logger: silentLogger() });
    await db.pool.query('insert into writes values (1)');
    notifier.notify('q');
    await until(() => received.length === 1);
    await reading;
    expect(received).toEqual([{ payload: 'q', rows: 1 }]);
    await notifier.close();
  });

  it('sends a burst as two statements (at once, then one for the rest), every payload once', async () => {
    received.length = 0;
    const { pool, statements } = countingPool();
    const notifier = createCoalescedNotify({
      pool,
      channel: CHANNEL,
      logger: silentLogger(),
      intervalMs: 50,
    });
    for (let i = 0; i < 20; i++) notifier.notify(i % 2 === 0 ? 'a' : 'b');
    await until(() => received.length >= 3);
    await notifier.close();
    expect(statements()).toBe(2);
    expect(received.map((r) => r.payload).sort()).toEqual(['a', 'a', 'b']);
  });

  it('close sends what waits for its interval', async () => {
    received.length = 0;
    const { pool, statements } = countingPool();
    const notifier = createCoalescedNotify({
      pool,
      channel: CHANNEL,
      logger: silentLogger(),
      intervalMs: 60_000,
    });
    notifier.notify('first');
    notifier.notify('second');
    await notifier.close();
    expect(statements()).toBe(2);
    await until(() => received.length === 2);
    expect(received.map((r) => r.payload)).toEqual(['first', 'second']);
  });

  it('refuses an interval that is not a number of milliseconds', () => {
    for (const intervalMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() =>
        createCoalescedNotify({ pool: db.pool, channel: CHANNEL, logger: silentLogger(), intervalMs }),
      ).toThrow(RangeError);
    }
  });
});
