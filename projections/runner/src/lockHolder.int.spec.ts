import { silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLockHolder } from './lockHolder.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe('the lock holder', () => {
  it('serves many loops asking at once on its one connection, one query at a time', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const holder = createLockHolder(db.pool, silentLogger());
    try {
      const locks = Array.from({ length: 12 }, (_, i) => ({ key: `lock-holder-test:${i}`, sub: i }));
      const leases = await Promise.all(locks.map((lock) => holder.tryLock(lock)));
      expect(leases.every((lease) => lease !== null && !lease.lost)).toBe(true);
      // Held: a second holder (another session) is refused each one.
      const other = createLockHolder(db.pool, silentLogger());
      expect(await Promise.all(locks.map((lock) => other.tryLock(lock)))).toEqual(locks.map(() => null));
      await Promise.all(leases.map((lease) => lease?.release()));
      const again = await Promise.all(locks.map((lock) => other.tryLock(lock)));
      expect(again.every((lease) => lease !== null)).toBe(true);
      await other.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await holder.close();
    }
  });
});
