import { upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  type EventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  START,
} from '@parley/eventstore';
import type { MigrationSet } from '@parley/platform';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { tracesProjection } from '../tracesProjection.js';

/** A fresh database with the log, the registry and a running traces projection. */
export interface Harness {
  db: TestDatabase;
  store: EventStore;
  runner: ProjectionRunner;
  /** Appends to a stream in slices of 500 and notes the position for caughtUp (events the projection reads only). */
  append(stream: string, events: readonly EventToAppend[]): Promise<void>;
  /** Waits until the projection has applied everything appended so far. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export async function createHarness(
  options: { batchSize?: number; migrations?: readonly MigrationSet[] } = {},
): Promise<Harness> {
  const db = await createTestDatabase([
    eventStoreMigrations,
    projectionRunnerMigrations,
    ...(options.migrations ?? []),
  ]);
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [tracesProjection],
    pollIntervalMs: 20,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  await runner.start();
  let last: Position = START;
  return {
    db,
    store,
    runner,
    async append(stream, events) {
      for (let i = 0; i < events.length; i += 500) {
        const { position } = await store.append(stream, events.slice(i, i + 500));
        if (comparePositions(position, last) > 0) last = position;
      }
    },
    async caughtUp() {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const [status] = await projectionStatus(db.pool, store, [tracesProjection]);
        const live = status?.generations.find((g) => g.generation === status.liveGeneration);
        if (status?.state === 'failed') throw new Error(`traces failed: ${JSON.stringify(status)}`);
        if (live && comparePositions(live.checkpoint, last) >= 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('traces did not catch up');
    },
    async close() {
      await runner.stop();
      await store.close();
      await db.close();
    },
  };
}
