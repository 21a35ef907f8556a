import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionError } from './connectionErrors.js';
import { createTestDatabase, type TestDatabase } from './testing/database.js';

let db: TestDatabase;
let admin: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase();
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
  await db.close();
});

/** Ends a session from the server side, as a restart does to every session: FATAL 57P01. */
async function terminate(pid: number): Promise<void> {
  await admin.query('select pg_terminate_backend($1)', [pid]);
}

describe('a pool client whose session the server ends', () => {
  it('does not take the process down while checked out between two statements', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const client = await db.pool.connect();
      try {
        const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
        const ended = new Promise((resolve) => client.once('end', resolve));
        await terminate(rows[0]!.pid);
        // Without a listener the 'error' event throws out of the socket handler before 'end'.
        await Promise.race([ended, new Promise((r) => setTimeout(r, 2_000))]);
        expect(uncaught).toEqual([]);
        // The holder's next statement fails with a connection-class error (503 on the API), and the
        // client, released, is discarded: the pool serves the next checkout with a new connection.
        const next = await client.query('select 1').catch((err: unknown) => err);
        expect(isConnectionError(next)).toBe(true);
      } finally {
        client.release(true);
      }
      expect((await db.pool.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('fails a statement in flight with a connection-class error', async () => {
    const client = await db.pool.connect();
    try {
      const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
      const running = client.query('select pg_sleep(5)').catch((err: unknown) => err);
      await new Promise((r) => setTimeout(r, 100));
      await terminate(rows[0]!.pid);
      expect(isConnectionError(await running)).toBe(true);
    } finally {
      client.release();
    }
  });
});
