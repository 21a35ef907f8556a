import {
  comparePositions,
  createPostgresEventStore,
  type EventToAppend,
  eventStoreMigrations,
  type Position,
  START,
} from '@parley/eventstore';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionRunner,
  type ProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
} from '@parley/projection-runner';
import { sessionSummariesProjection } from '../sessionSummariesProjection.js';

export interface Harness {
  db: TestDatabase;
  store: ReturnType<typeof createPostgresEventStore>;
  runner: ProjectionRunner;
  /** Appends to one stream and remembers the position, for caughtUp. */
  append(stream: string, events: EventToAppend[]): Promise<void>;
  /** Waits until the live generation has applied everything appended so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A fresh database with the log, the registry and a running session-summaries runner. */
export async function createHarness(): Promise<Harness> {
  const db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations], { poolMax: 20 });
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
  const runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [sessionSummariesProjection],
    batchSize: 500,
    pollIntervalMs: 50,
    idleCheckMs: 100,
    retryBackoff: { initialMs: 20, maxMs: 200 },
  });
  await runner.start();
  let last: Position = START;
  return {
    db,
    store,
    runner,
    async append(stream, events) {
      const { position } = await store.append(stream, events);
      if (comparePositions(position, last) > 0) last = position;
    },
    async caughtUp(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const head = await store.head();
        // eventsBehind counts the settled log only: first wait until our appends are readable.
        if (head && comparePositions(head.position, last) >= 0) {
          const [status] = await projectionStatus(db.pool, store, [sessionSummariesProjection]);
          const live = status?.generations.find((g) => g.status === 'live');
          if (live?.eventsBehind === 0) return;
        }
        if (Date.now() > deadline) throw new Error('session-summaries did not catch up');
        await sleep(20);
      }
    },
    async close() {
      await runner.stop();
      await store.close();
      await db.close();
    },
  };
}
