import { authMigrations } from '@parley/auth';
import { channelsMigrations } from '@parley/channels';
import { migrate, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import PgBossV10 from 'pg-boss-v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carryOverPgBossV10Jobs } from './pgBossV10CarryOver.js';
import { createJobQueue, PG_BOSS_SCHEMA } from './recordings/jobQueue.js';
import { ensureMediaFetchQueue, MEDIA_FETCH_QUEUE } from './recordings/mediaFetchJob.js';
import { TEST_FETCH_OPTIONS } from './recordings/testing/fetchOptions.js';

// A database whose jobs were queued by pg-boss 10 (Parley before issue 18), upgraded as a deployment
// is: the migrations set the old schema aside, pg-boss 12 starts on a fresh one, the worker carries
// the jobs still to run over.
let db: TestDatabase;
const later = new Date(Date.now() + 3_600_000);
const ids = { waiting: '', deferred: '', done: '', retired: '' };

beforeAll(async () => {
  db = await createTestDatabase();
  const old = new PgBossV10({
    db: { executeSql: (text: string, values?: unknown[]) => db.pool.query(text, values) },
    schema: PG_BOSS_SCHEMA,
    supervise: false,
    schedule: false,
  });
  await old.start();
  await old.createQueue(MEDIA_FETCH_QUEUE);
  await old.createQueue('retired-queue');
  ids.waiting = (await old.send(MEDIA_FETCH_QUEUE, { recordingId: 'RE1' }, { retryLimit: 5 }))!;
  ids.deferred = (await old.send(MEDIA_FETCH_QUEUE, { recordingId: 'RE2' }, { startAfter: later }))!;
  ids.done = (await old.send(MEDIA_FETCH_QUEUE, { recordingId: 'RE3' }))!;
  ids.retired = (await old.send('retired-queue', { x: 1 }))!;
  // One attempt made and failed: four of its five retries are left.
  await db.pool.query(`update pgboss.job set retry_count = 1, state = 'retry' where id = $1`, [ids.waiting]);
  await db.pool.query(`update pgboss.job set state = 'completed', completed_on = now() where id = $1`, [
    ids.done,
  ]);
  await old.stop({ graceful: false, wait: true });
});
afterAll(async () => {
  await db.close();
});

describe('a pg-boss 10 schema at upgrade', () => {
  it('is set aside by the migrations, and its jobs still to run join pg-boss 12 queues', async () => {
    await migrate(db.pool, [authMigrations, channelsMigrations]);
    const schemas = await db.pool.query<{ nspname: string }>(
      `select nspname from pg_namespace where nspname like 'pgboss%' order by 1`,
    );
    expect(schemas.rows.map((r) => r.nspname)).toEqual(['pgboss_v10']);

    const boss = createJobQueue(db.pool, { supervise: false });
    await boss.start();
    try {
      await ensureMediaFetchQueue(boss, TEST_FETCH_OPTIONS);
      expect(await carryOverPgBossV10Jobs(db.pool, silentLogger())).toEqual({ carried: 2, dropped: 1 });

      const jobs = await boss.findJobs<{ recordingId: string }>(MEDIA_FETCH_QUEUE);
      const byId = new Map(jobs.map((j) => [j.id, j]));
      expect([...byId.keys()].sort()).toEqual([ids.waiting, ids.deferred].sort());
      expect(byId.get(ids.waiting)).toMatchObject({
        data: { recordingId: 'RE1' },
        state: 'created',
        retryLimit: 4,
      });
      expect(byId.get(ids.deferred)?.startAfter.getTime()).toBe(later.getTime());
      const left = await db.pool.query(`select 1 from pg_namespace where nspname = 'pgboss_v10'`);
      expect(left.rowCount).toBe(0);
      // Later starts find nothing to do.
      expect(await carryOverPgBossV10Jobs(db.pool, silentLogger())).toBeNull();
    } finally {
      await boss.stop({ graceful: false });
    }
  });
});
