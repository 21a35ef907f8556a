import {
  comparePositions,
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  type PostgresEventStore,
  START,
  type Upcast,
} from '@parley/eventstore';
import type { MigrationSet } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { createProjectionRunner, type ProjectionRunner } from '../createProjectionRunner.js';
import type { Projection } from '../defineProjection.js';
import { projectionRunnerMigrations } from '../migrations.js';
import { projectionStatus } from '../projectionStatus.js';

/** A fresh database with the log, the registry and one projection running, for a spec file. */
export interface ProjectionHarness {
  db: TestDatabase;
  store: PostgresEventStore;
  runner: ProjectionRunner;
  /** Appends to a stream in slices of 500 (one transaction each) and notes the position for caughtUp. */
  append(stream: string, events: readonly EventToAppend[]): Promise<void>;
  /** Notes an append made directly on the store, for caughtUp. */
  appended(position: Position): void;
  /**
   * Waits until the live generation's checkpoint covers every position noted so far. Appends of other
   * spec files' transactions can hold back what the log lets readers see, so "no events behind" can
   * be true before our own appends are readable: the positions are what is waited for.
   */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export async function createProjectionHarness(options: {
  projection: Projection;
  migrations?: readonly MigrationSet[];
  batchSize?: number;
  upcast?: Upcast;
  timeoutMs?: number;
}): Promise<ProjectionHarness> {
  const { projection } = options;
  const db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    ...(options.migrations ?? []),
  ]);
  const store = createPostgresEventStore({
    pool: db.pool,
    connectionString: db.url,
    ...(options.upcast === undefined ? {} : { upcast: options.upcast }),
  });
  const runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [projection],
    pollIntervalMs: 20,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  await runner.start();
  let last: Position = START;
  const appended = (position: Position): void => {
    if (comparePositions(position, last) > 0) last = position;
  };
  return {
    db,
    store,
    runner,
    async append(stream, events) {
      for (let i = 0; i < events.length; i += 500) {
        appended((await store.append(stream, events.slice(i, i + 500))).position);
      }
    },
    appended,
    async caughtUp() {
      const deadline = Date.now() + (options.timeoutMs ?? 60_000);
      while (Date.now() < deadline) {
        const [status] = await projectionStatus(db.pool, store, [projection]);
        const live = status?.generations.find((g) => g.generation === status.liveGeneration);
        if (status?.state === 'failed')
          throw new Error(`${projection.name} failed: ${JSON.stringify(status)}`);
        if (live && comparePositions(live.checkpoint, last) >= 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`${projection.name} did not catch up`);
    },
    async close() {
      await runner.stop();
      await store.close();
      await db.close();
    },
  };
}
