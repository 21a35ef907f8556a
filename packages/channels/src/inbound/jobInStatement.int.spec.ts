import { PG_BOSS_QUEUE_NOT_FOUND } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import type { PgBoss } from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeJobStatement, JobNotInsertedError, sendJobInStatement } from './jobInStatement.js';
import { createChannelJobQueue } from './jobs.js';

/** The caller's writes and a pg-boss job in one statement: both or neither, the job only when asked. */
let db: TestDatabase;
let boss: PgBoss;
const QUEUE = 'statement-test';

beforeAll(async () => {
  db = await createTestDatabase([]);
  await db.pool.query('create table marks (id text primary key)');
  boss = createChannelJobQueue(db.pool);
  await boss.start();
  await boss.createQueue(QUEUE);
});
afterAll(async () => {
  await boss?.stop({ graceful: false });
  await db?.close();
});

const mark = (id: string, jobId: string) =>
  sendJobInStatement<{ inserted: number }>(
    db.pool,
    boss,
    { queue: QUEUE, data: { id }, options: { id: jobId } },
    {
      ctes: 'inserted as (insert into marks (id) values ($2) on conflict do nothing returning 1)',
      when: 'exists (select 1 from inserted)',
      select: '(select count(*) from inserted)::int as inserted',
      values: [id],
    },
  );
const jobs = async (id: string) =>
  (await db.pool.query('select data from pgboss.job where name = $1 and id = $2', [QUEUE, id])).rows;
const marks = async (id: string) => (await db.pool.query('select 1 from marks where id = $1', [id])).rowCount;

describe('sendJobInStatement', () => {
  it('inserts the row and its job together, and neither job nor error for a repeat', async () => {
    const jobId = '00000000-0000-4000-8000-000000000001';
    const first = await mark('a', jobId);
    expect(first).toMatchObject({ inserted: 1, job_ids: [jobId] });
    expect(await jobs(jobId)).toEqual([{ data: { id: 'a' } }]);
    const again = await mark('a', '00000000-0000-4000-8000-000000000002');
    expect(again).toMatchObject({ inserted: 0, job_ids: [] });
    expect(await jobs('00000000-0000-4000-8000-000000000002')).toEqual([]);
  });

  it('prepares each shape once per connection', async () => {
    const client = await db.pool.connect();
    try {
      for (const id of ['p1', 'p2', 'p3']) {
        await sendJobInStatement(
          client,
          boss,
          { queue: QUEUE, data: { id }, options: {} },
          {
            ctes: 'inserted as (insert into marks (id) values ($2) on conflict do nothing returning 1)',
            when: 'exists (select 1 from inserted)',
            select: '(select count(*) from inserted)::int as inserted',
            values: [id],
          },
        );
      }
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from pg_prepared_statements where name like 'job_in_statement_%'`,
      );
      expect(rows[0]?.n).toBe(1);
      expect(await marks('p3')).toBe(1);
    } finally {
      client.release();
    }
  });

  it('undoes the row when its job cannot be inserted (the job id is taken)', async () => {
    const jobId = '00000000-0000-4000-8000-000000000001';
    await expect(mark('b', jobId)).rejects.toBeInstanceOf(JobNotInsertedError);
    expect(await marks('b')).toBe(0);
  });

  it('writes nothing for a queue that does not exist', async () => {
    const missing = sendJobInStatement(
      db.pool,
      boss,
      { queue: 'no-such-queue', data: {}, options: {} },
      {
        ctes: `inserted as (insert into marks (id) values ('c') returning 1)`,
        when: 'true',
        select: '1 as one',
        values: [],
      },
    );
    await expect(missing).rejects.toMatchObject({ code: PG_BOSS_QUEUE_NOT_FOUND });
    expect(await marks('c')).toBe(0);
  });

  it('writes nothing for a queue deleted after pg-boss cached it', async () => {
    await boss.createQueue('gone');
    const send = (id: string) =>
      sendJobInStatement(
        db.pool,
        boss,
        { queue: 'gone', data: {}, options: {} },
        {
          ctes: 'inserted as (insert into marks (id) values ($2) returning 1)',
          when: 'true',
          select: '1 as one',
          values: [id],
        },
      );
    await send('d');
    await boss.deleteQueue('gone');
    await expect(send('e')).rejects.toMatchObject({ code: PG_BOSS_QUEUE_NOT_FOUND });
    expect(await marks('e')).toBe(0);
  });

  it('refuses an insert of another shape than the one it knows (a pg-boss upgrade)', () => {
    const statement = { ctes: 'x as (select 1)', when: 'true', select: '1', values: [] };
    expect(() => composeJobStatement('WITH ins AS (insert ...) select 1', statement)).toThrow(
      /unexpected shape/,
    );
    expect(() => composeJobStatement('insert into job select * from t', statement)).toThrow(
      /unexpected shape/,
    );
  });
});
