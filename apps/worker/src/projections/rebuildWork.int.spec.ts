import { randomUUID } from 'node:crypto';
import { createPostgresEventStore, type EventToAppend, eventStoreMigrations } from '@parley/eventstore';
import { type PoolClient, silentLogger } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  defineProjection,
  ensureProjections,
  projectionRunnerMigrations,
  projectionStatus,
  type RebuildRequest,
  readRebuild,
  requestRebuild,
} from '@parley/projection-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue } from '../recordings/jobQueue.js';
import { createProjectionRebuildWork, type ProjectionRebuildWork } from './rebuildWork.js';

/**
 * The worker's projection-rebuild queue against PostgreSQL: a rebuild requested as the API does
 * (row and job in one transaction) is run to completion with its progress written, survives a
 * worker stop (queued again, resumed from its checkpoint), and waits for a rebuild held elsewhere.
 */

const EVENTS = 4_000;
const tableOf = (name: string) => `${name}_rows`;
const countsOf = (name: string) =>
  defineProjection({
    name,
    version: 1,
    tables: {
      [tableOf(name)]: { columns: { stream: 'text', count: 'bigint' }, primaryKey: ['stream'] },
    },
    handlers: {
      [tableOf(name)]: {
        keys: (event) => {
          // 0.5 ms of work per event: a rebuild of the log lasts about 2 s however fast the machine is,
          // long enough to see its progress and to stop it halfway.
          const until = performance.now() + 0.5;
          while (performance.now() < until) {}
          return [{ stream: event.stream }];
        },
        evolve: (row, _event, key) => (row ? { ...row, count: Number(row.count) + 1 } : { ...key, count: 1 }),
      },
    },
  });
/** Its handler refuses the events of one stream: a rebuild of it fails. */
const poison = defineProjection({
  name: 'poison',
  version: 1,
  tables: { poison_rows: { columns: { stream: 'text' }, primaryKey: ['stream'] } },
  handlers: {
    poison_rows: {
      keys: (event) => {
        if (event.stream === 'session-3') throw new Error('refused');
        return [{ stream: event.stream }];
      },
      evolve: (row, _event, key) => row ?? key,
    },
  },
});
const projections = [...['done', 'stopped', 'busy', 'orphan'].map(countsOf), poison];

let db: TestDatabase;
let store: ReturnType<typeof createPostgresEventStore>;
const sender = () => createJobQueue(db.pool);

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations], { poolMax: 20 });
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
  for (let i = 0; i < EVENTS; i += 500) {
    const events: EventToAppend[] = Array.from({ length: 500 }, () => ({
      eventId: randomUUID(),
      type: 'MessageReceived',
      data: {},
      metadata: {},
    }));
    await store.append(`session-${i % 7}`, events);
  }
  await ensureProjections(db.pool, projections);
  // Every version of every rebuild row, to see the progress the worker wrote.
  await db.pool.query(`
    create table rebuild_history as select *, clock_timestamp() as seen_at from projection_rebuilds where false;
    create function keep_rebuild_history() returns trigger language plpgsql as $$
      begin insert into rebuild_history select new.*, clock_timestamp(); return new; end $$;
    create trigger keep_rebuild_history after insert or update on projection_rebuilds
      for each row execute function keep_rebuild_history();`);
  // The log must be settled (no older transaction open in the cluster) before a rebuild reads it.
  const deadline = Date.now() + 10_000;
  while ((await store.countAfter(undefined, undefined, EVENTS)) < EVENTS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
});
afterAll(async () => {
  await store?.close();
  await db?.close();
});

const work = (options: { busyRetrySeconds?: number } = {}): ProjectionRebuildWork =>
  createProjectionRebuildWork(
    { pool: db.pool, store, logger: silentLogger(), projections },
    { pollingIntervalSeconds: 0.5, batchSize: 20, ...options },
  );

const request = (projection: string) =>
  requestRebuild(
    { pool: db.pool, store, boss: sender() },
    { projection, requestedBy: { kind: 'api_key', id: 'key_test' } },
  );

async function until(
  id: string,
  done: (r: RebuildRequest) => boolean,
  timeoutMs = 45_000,
): Promise<RebuildRequest> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await readRebuild(db.pool, id);
    if (r && done(r)) return r;
    if (Date.now() > deadline) throw new Error(`rebuild ${id}: still ${r?.state}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface HistoryRow {
  state: string;
  events_processed: string;
  events_total: string | null;
  events_per_second: number | null;
  generation: number | null;
  updated_at: Date;
}
const history = async (id: string): Promise<HistoryRow[]> =>
  (
    await db.pool.query<HistoryRow>(
      `select state, events_processed::text, events_total::text, events_per_second, generation, updated_at
         from rebuild_history where id = $1 order by seen_at`,
      [id],
    )
  ).rows;

async function liveRows(name: string): Promise<{ generation: number | null; total: number }> {
  const [status] = await projectionStatus(
    db.pool,
    store,
    projections.filter((p) => p.name === name),
  );
  const { rows } = await db.pool.query<{ total: string }>(
    `select coalesce(sum(count), 0)::text as total from ${tableOf(name)}`,
  );
  return { generation: status?.liveGeneration ?? null, total: Number(rows[0]?.total) };
}

describe('projection-rebuild queue', { timeout: 60_000 }, () => {
  it('runs a requested rebuild, writes its progress at most every 500 ms, and the new generation is live', async () => {
    const worker = work();
    await worker.start();
    try {
      const requested = await request('done');
      const rebuild = await until(requested.id, (r) => r.state === 'completed' || r.state === 'failed');
      expect(rebuild).toMatchObject({
        state: 'completed',
        generation: 2,
        eventsProcessed: EVENTS,
        eventsTotal: EVENTS,
        error: null,
        requestedBy: { kind: 'api_key', id: 'key_test' },
      });
      expect(rebuild.eventsPerSecond).toBeGreaterThan(0);
      expect(rebuild.startedAt!.getTime()).toBeGreaterThanOrEqual(rebuild.requestedAt.getTime());
      expect(rebuild.finishedAt!.getTime()).toBeGreaterThanOrEqual(rebuild.startedAt!.getTime());

      const rows = await history(requested.id);
      const progress = rows.filter((r) => r.state === 'running' && Number(r.events_processed) > 0);
      expect(progress.length).toBeGreaterThanOrEqual(2);
      const processed = progress.map((r) => Number(r.events_processed));
      expect(processed).toEqual([...processed].sort((a, b) => a - b));
      for (const r of progress) {
        expect(r.generation).toBe(2);
        expect(Number(r.events_total)).toBeGreaterThanOrEqual(Number(r.events_processed));
        expect(r.events_per_second).not.toBeNull();
      }
      for (let i = 1; i < progress.length; i++) {
        const gap = progress[i]!.updated_at.getTime() - progress[i - 1]!.updated_at.getTime();
        expect(gap).toBeGreaterThanOrEqual(450);
      }
      expect(rows.at(-1)?.state).toBe('completed');
      expect(await liveRows('done')).toEqual({ generation: 2, total: EVENTS });
    } finally {
      await worker.stop();
    }
  });

  it('a stopped worker queues its rebuild again; the next one resumes it from its checkpoint', async () => {
    const first = work();
    await first.start();
    const requested = await request('stopped');
    try {
      await until(requested.id, (r) => r.state === 'running' && r.eventsProcessed > 0);
    } finally {
      await first.stop();
    }
    const stoppedAt = (await readRebuild(db.pool, requested.id))!;
    expect(stoppedAt.state).toBe('queued');
    expect(stoppedAt.eventsProcessed).toBeGreaterThan(0);
    expect(stoppedAt.eventsProcessed).toBeLessThan(EVENTS);
    const jobs = await db.pool.query(
      `select state from pgboss.job where name = 'projection-rebuild' and data->>'rebuildId' = $1 and state = 'created'`,
      [requested.id],
    );
    expect(jobs.rowCount).toBe(1);

    const second = work();
    await second.start();
    try {
      const rebuild = await until(requested.id, (r) => r.state === 'completed' || r.state === 'failed');
      expect(rebuild).toMatchObject({
        state: 'completed',
        generation: 2,
        eventsProcessed: EVENTS,
        error: null,
      });
      // Resumed: after the stop (the row queued again), no write goes below where the first run stopped.
      const rows = await history(requested.id);
      const requeued = rows.findIndex((r, i) => r.state === 'queued' && i > 0);
      expect(requeued).toBeGreaterThan(0);
      const after = rows.slice(requeued).map((r) => Number(r.events_processed));
      expect(Math.min(...after)).toBeGreaterThanOrEqual(stoppedAt.eventsProcessed);
      expect(await liveRows('stopped')).toEqual({ generation: 2, total: EVENTS });
    } finally {
      await second.stop();
    }
  });

  it('waits while another process holds the projection’s rebuild, then runs it', async () => {
    const holder: PoolClient = await db.pool.connect();
    const worker = work({ busyRetrySeconds: 1 });
    try {
      await holder.query(`select pg_advisory_lock(hashtext('parley.projection.rebuild:busy'), 0)`);
      await worker.start();
      const requested = await request('busy');
      // Taken, found busy, and queued again (not failed).
      const deadline = Date.now() + 30_000;
      const requeued = (rows: HistoryRow[]) => {
        const taken = rows.findIndex((r) => r.state === 'running');
        return taken >= 0 && rows.slice(taken + 1).some((r) => r.state === 'queued');
      };
      while (!requeued(await history(requested.id)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 25));
      }
      const waiting = await readRebuild(db.pool, requested.id);
      expect(waiting).toMatchObject({ state: 'queued', error: null });
      await holder.query(`select pg_advisory_unlock(hashtext('parley.projection.rebuild:busy'), 0)`);
      const rebuild = await until(requested.id, (r) => r.state === 'completed' || r.state === 'failed');
      expect(rebuild).toMatchObject({ state: 'completed', generation: 2, eventsProcessed: EVENTS });
    } finally {
      await worker.stop();
      holder.release();
    }
  });

  it('at start, gives a job to a rebuild whose worker died', async () => {
    const id = randomUUID();
    await db.pool.query(
      `insert into projection_rebuilds (id, projection, state, requested_by_kind, requested_by_id, started_at)
       values ($1, 'orphan', 'running', 'user', 'u-1', now())`,
      [id],
    );
    const worker = work();
    await worker.start();
    try {
      const rebuild = await until(id, (r) => r.state === 'completed' || r.state === 'failed');
      expect(rebuild).toMatchObject({ state: 'completed', generation: 2, eventsProcessed: EVENTS });
    } finally {
      await worker.stop();
    }
  });

  it('marks a rebuild failed with the error; the live generation keeps serving', async () => {
    const worker = work();
    await worker.start();
    try {
      const requested = await request('poison');
      const rebuild = await until(requested.id, (r) => r.state === 'completed' || r.state === 'failed');
      expect(rebuild).toMatchObject({ state: 'failed', generation: 2 });
      expect(rebuild.error).toMatch(
        /poison_rows: keys failed on event [0-9a-f-]+ \(MessageReceived\): refused/,
      );
      expect(rebuild.finishedAt).not.toBeNull();
      const [status] = await projectionStatus(db.pool, store, [poison]);
      expect(status?.liveGeneration).toBe(1);
      // Failed is final: a new request is accepted.
      expect((await request('poison')).state).toBe('queued');
    } finally {
      await worker.stop();
    }
  });
});
