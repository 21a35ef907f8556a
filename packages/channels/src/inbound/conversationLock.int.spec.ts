import { createPool, type Pool } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationLockKey, withConversationLock } from './conversationLock.js';
import { channelInboundMigrations } from './migrations.js';

let db: TestDatabase;
/** A pool of ONE connection: a lock that pinned a connection while its holder works would deadlock here. */
let single: Pool;

beforeAll(async () => {
  db = await createTestDatabase([channelInboundMigrations]);
  single = createPool({ connectionString: db.url, max: 1 });
});
afterAll(async () => {
  await single?.end();
  await db?.close();
});

const busy = (pool: Pool) => pool.totalCount - pool.idleCount;

describe('the conversation lock (a lease, no pinned connection)', () => {
  it('holds no connection while its holder works: two conversations run at once on a one-connection pool', async () => {
    let inside = 0;
    let release: () => void = () => {};
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    const busyInside: number[] = [];
    const hold = (key: string) =>
      withConversationLock(single, 'conn', key, async () => {
        inside += 1;
        if (inside === 2) release();
        await Promise.race([
          both,
          new Promise((_, reject) => setTimeout(() => reject(new Error('alone')), 3000)),
        ]);
        // Both holders are at work: no connection is checked out.
        busyInside.push(busy(single));
        return key;
      });
    const results = await Promise.all([hold('a'), hold('b')]);
    expect(results).toEqual([
      { locked: true, value: 'a' },
      { locked: true, value: 'b' },
    ]);
    expect(busyInside).toEqual([0, 0]);
  });

  it('one conversation at a time: the second waits for the first to finish', async () => {
    const order: string[] = [];
    const run = (name: string, ms: number) =>
      withConversationLock(db.pool, 'conn', 'same', async () => {
        order.push(`${name}:start`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        order.push(`${name}:end`);
      });
    const first = run('first', 150);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await Promise.all([first, run('second', 1)]);
    expect(order).toEqual(['first:start', 'first:end', 'second:start', 'second:end']);
    const { rows } = await db.pool.query('select count(*)::int as n from channel_conversation_locks');
    expect(rows[0].n).toBe(0);
  });

  it('a live lease refuses until the deadline; an expired one (a dead holder) is taken over', async () => {
    const key = conversationLockKey('conn', 'stale');
    await db.pool.query(
      `insert into channel_conversation_locks values ($1, 'dead-holder', now() + interval '1 hour')`,
      [key],
    );
    const refused = await withConversationLock(db.pool, 'conn', 'stale', async () => 'x', {
      deadline: Date.now() + 100,
    });
    expect(refused).toEqual({ locked: false });
    await db.pool.query(
      `update channel_conversation_locks set expires_at = now() - interval '1 second' where lock_key = $1`,
      [key],
    );
    expect(await withConversationLock(db.pool, 'conn', 'stale', async () => 'taken')).toEqual({
      locked: true,
      value: 'taken',
    });
  });

  it('renews its lease while the holder works past it', async () => {
    const result = withConversationLock(
      db.pool,
      'conn',
      'long',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return 'done';
      },
      { leaseMs: 150 },
    );
    await new Promise((resolve) => setTimeout(resolve, 250));
    // Past the first lease: still held (renewed), so another turn cannot take it.
    const other = await withConversationLock(db.pool, 'conn', 'long', async () => 'other', {
      deadline: Date.now() + 50,
    });
    expect(other).toEqual({ locked: false });
    expect(await result).toEqual({ locked: true, value: 'done' });
  });
});
