import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPool, type Pool } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { collect, eventually, makeEvents, readAllOf, uniqueName, uniqueType } from '../testing/helpers.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

const fixture = fileURLToPath(new URL('../testing/crashAppender.ts', import.meta.url));

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

const backendsOf = async (applicationName: string) =>
  (
    await db.pool.query<{ pid: number; query: string; state: string }>(
      `select pid, query, state from pg_stat_activity
       where datname = current_database() and application_name = $1`,
      [applicationName],
    )
  ).rows;

const countOfType = async (type: string) =>
  (await db.pool.query<{ n: number }>('select count(*)::int as n from events where type = $1', [type]))
    .rows[0]!.n;

/** Runs the fixture until it acknowledged `acks` appends, then SIGKILLs it mid-run. */
async function appendUntilKilled(prefix: string, type: string, acks: number): Promise<Map<string, number>> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=@parley/source', '--import', 'tsx', fixture, db.url, type, prefix],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const acknowledged = new Map<string, number>();
  let buffered = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_, signal) => resolve(signal)),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [, batch, size] = line.split(' ');
        if (batch && size) acknowledged.set(batch, Number(size));
      }
      if (acknowledged.size >= acks) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the fixture exited by itself (code ${code})`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return acknowledged;
}

describe('a crash between append and read', () => {
  it('loses no acknowledged batch and leaves no partial one', async () => {
    const prefix = uniqueName('crash');
    const type = uniqueType('Crash');
    const acknowledged = await appendUntilKilled(prefix, type, 40);
    // The killed client's sessions end (their open transactions roll back) once PostgreSQL notices.
    await eventually(
      () => backendsOf(`crash-${prefix}`),
      (rows) => rows.length === 0,
    );
    const stored = await countOfType(type);
    const read = await readAllOf(store, { eventTypes: [type], expected: stored });
    expect(read).toHaveLength(stored);
    expect(new Set(read.map((e) => e.eventId)).size).toBe(stored);

    const batches = new Map<string, number[]>();
    for (const e of read) {
      const batch = String(e.data.batch);
      batches.set(batch, [...(batches.get(batch) ?? []), Number(e.data.index)]);
      expect(e.data.size).toBeTypeOf('number');
    }
    for (const [batch, size] of acknowledged) expect(batches.get(batch)?.length, `batch ${batch}`).toBe(size);
    for (const [batch, indexes] of batches) {
      const size = Number(read.find((e) => e.data.batch === batch)?.data.size);
      expect(indexes, `batch ${batch} is partial or out of order`).toEqual([...Array(size).keys()]);
    }
    for (const lane of [0, 1, 2, 3]) {
      const revisions = (await collect(store.readStream(`${prefix}-${lane}`))).map((e) => Number(e.revision));
      expect(revisions).toEqual([...revisions.keys()]);
    }
  }, 60_000);
});

describe('a connection terminated mid-append', () => {
  let victims: Pool;
  const victimName = uniqueName('victim');
  beforeAll(() => {
    victims = createPool({ connectionString: db.url, max: 2, applicationName: victimName });
  });
  afterAll(() => victims.end());

  const streamRow = async (stream: string) =>
    (await db.pool.query('select revision::text from streams where stream_id = $1', [stream])).rows;

  it('after the insert, before commit: nothing of the batch remains', async () => {
    const stream = uniqueName('terminated');
    const type = uniqueType('Terminated');
    const client = await victims.connect();
    client.on('error', () => {});
    try {
      await client.query('begin');
      await store.appendWith(client, stream, makeEvents(500, type));
      const [{ pid }] = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [
        { pid: number },
      ];
      await db.pool.query('select pg_terminate_backend($1)', [pid]);
      await expect(client.query('commit')).rejects.toThrow();
    } finally {
      client.release(true);
    }
    expect(await countOfType(type)).toBe(0);
    expect(await streamRow(stream)).toEqual([]);
  });

  it('during the insert statement: nothing of the batch remains', async () => {
    const victimStore = createPostgresEventStore({ pool: victims });
    const stream = uniqueName('terminated');
    const type = uniqueType('Terminated');
    const appending = victimStore.append(stream, makeEvents(20_000, type));
    const outcome = appending.then(
      () => 'appended',
      () => 'failed',
    );
    const [inserting] = await eventually(
      async () =>
        (await backendsOf(victimName)).filter(
          // The append is one call of parley_append; its insert is most of the call's time.
          (b) => b.state === 'active' && /insert into events|parley_append\(/.test(b.query),
        ),
      (rows) => rows.length > 0,
      10_000,
    );
    expect(inserting, 'the append finished before it could be terminated').toBeDefined();
    await db.pool.query('select pg_terminate_backend($1)', [inserting!.pid]);
    expect(await outcome).toBe('failed');
    expect(await countOfType(type)).toBe(0);
    expect(await streamRow(stream)).toEqual([]);
    await victimStore.close();
  });
});
