import { randomBytes, randomUUID } from 'node:crypto';
import {
  comparePositions,
  createPostgresEventStore,
  type EventMetadata,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  type RecordedEvent,
  START,
} from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createProjectionRunner, type ProjectionRunnerOptions } from '../createProjectionRunner.js';
import type { Projection } from '../defineProjection.js';
import { normalizeValue } from '../fold.js';
import { projectionRunnerMigrations } from '../migrations.js';
import { projectionStatus } from '../projectionStatus.js';
import { memoryRows, projectInMemory } from '../testing/index.js';
import { tallyProjection } from './tallyProjection.js';

export interface Harness {
  db: TestDatabase;
  /** The real PostgreSQL store; appends through it are remembered (see settled). */
  store: PostgresEventStore;
  /** Waits until every event appended so far is readable (older transactions anywhere in the cluster finished). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** A fresh database with the log and the registry, and the real PostgreSQL event store. */
export async function createHarness(): Promise<Harness> {
  const db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations], { poolMax: 20 });
  const real = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
  let last: Position = START;
  const store: PostgresEventStore = {
    ...real,
    async append(stream, events, options) {
      const result = await real.append(stream, events, options);
      if (comparePositions(result.position, last) > 0) last = result.position;
      return result;
    },
  };
  return {
    db,
    store,
    async settled() {
      const target = last;
      const head = await eventually(
        () => real.head(),
        (h) => h !== null && comparePositions(h.position, target) >= 0,
      );
      if (comparePositions(head?.position ?? START, target) < 0) throw new Error('the log did not settle');
    },
    async close() {
      await real.close();
      await db.close();
    },
  };
}

/** A short random suffix for projection and table names. */
export const unique = (): string => randomBytes(4).toString('hex');

export function event(
  type: string,
  data: Record<string, unknown> = {},
  metadata: EventMetadata = {},
): EventToAppend {
  return { eventId: randomUUID(), type, data, metadata };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls check until done holds (or the timeout passes); returns the last value. */
export async function eventually<T>(check: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(20);
  }
}

/** The whole log as readable now; call Harness.settled() first to include every append. */
export async function wholeLog(store: PostgresEventStore): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for (;;) {
    const last = out.at(-1);
    const batch = await store.readAll({ maxCount: 5_000, ...(last ? { after: last.position } : {}) });
    if (batch.length === 0) return out;
    out.push(...batch);
  }
}

/** Rows as comparable plain values (Dates as ISO text), in key order. */
export function plain(rows: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, normalizeValue(v)])));
}

/** A view's rows, in the order memoryRows gives (by the JSON of the key column, not the database's collation). */
export async function viewRows(
  pool: Pool,
  view: string,
  keyColumn: string,
): Promise<Record<string, unknown>[]> {
  const { rows } = await pool.query(`select * from "${view}"`);
  const key = (r: Record<string, unknown>) => JSON.stringify([normalizeValue(r[keyColumn])]);
  return plain(rows).sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** What the projection's table should hold for the whole log, by the in-memory fold. */
export async function expectedRows(store: PostgresEventStore, projection: Projection, table: string) {
  return plain(memoryRows(projectInMemory(projection, await wholeLog(store)), table));
}

/**
 * Waits until the live generation has applied every event appended so far.
 * eventsBehind alone is not enough: it counts only the settled log, which a
 * transaction anywhere in the cluster (another test database) holds back.
 */
export async function caughtUp(h: Harness, projection: Projection, timeoutMs = 10_000) {
  const { pool } = h.db;
  const { store } = h;
  await h.settled();
  const [status] = await eventually(
    () => projectionStatus(pool, store, [projection]),
    ([s]) => s?.generations.find((g) => g.status === 'live')?.eventsBehind === 0,
    timeoutMs,
  );
  const live = status?.generations.find((g) => g.status === 'live');
  if (live?.eventsBehind !== 0) throw new Error(`projection ${projection.name} did not catch up`);
  return live;
}

/** Short intervals so that runner tests do not wait on production timings. */
export const fastTimings = {
  pollIntervalMs: 50,
  idleCheckMs: 100,
  retryBackoff: { initialMs: 20, maxMs: 200 },
};

/** A runner on the harness's database and log, with fast timings. */
export function testRunner(
  h: Harness,
  options: Pick<ProjectionRunnerOptions, 'projections'> & Partial<ProjectionRunnerOptions>,
) {
  return createProjectionRunner({ pool: h.db.pool, store: h.store, ...fastTimings, ...options });
}

/** A tally projection with fresh projection and table names; with `rollup`, its count rollup too. */
export function freshTally(options: { rollup?: boolean } = {}) {
  const table = `tallies_${unique()}`;
  return { table, projection: tallyProjection(`tallies-${unique()}`, table, 1, options.rollup ?? false) };
}
