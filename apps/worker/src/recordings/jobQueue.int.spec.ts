import { ensureQueue } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue } from './jobQueue.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([], { poolMax: 20 });
  // pg-boss's schema, as the first worker's start makes it.
  const boss = createJobQueue(db.pool, { supervise: false });
  await boss.start();
  await boss.stop({ graceful: false });
});
afterAll(() => db.close());

describe('ensureQueue with several workers starting at once', () => {
  it('creates every queue once, without a deadlock between two workers creating different queues', async () => {
    const workers = Array.from({ length: 4 }, () => createJobQueue(db.pool, { supervise: false }));
    for (let round = 0; round < 5; round++) {
      const names = ['a', 'b', 'c', 'd', 'e'].map((q) => `race-${round}-${q}`);
      // Each worker creates them in its own order, as workers with different work do.
      await Promise.all(
        workers.map(async (boss, w) => {
          const order = names.slice(w % names.length).concat(names.slice(0, w % names.length));
          for (const name of order) await ensureQueue(boss, name, { retryLimit: 2 });
        }),
      );
      const queues = await db.pool.query<{ name: string }>(
        'select name from pgboss.queue where name like $1 order by name',
        [`race-${round}-%`],
      );
      expect(queues.rows.map((r) => r.name)).toEqual(names);
    }
  });
});
