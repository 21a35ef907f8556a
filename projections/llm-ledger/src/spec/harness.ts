import { type EventDataInput, streamForLlmCall, toAppend, upcast } from '@parley/events';
import {
  comparePositions,
  createPostgresEventStore,
  type EventStore,
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
import { llmLedgerProjection } from '../llmLedgerProjection.js';

export type CallInput = EventDataInput<'LlmCallRecorded'>;

/** A fresh database with the log, the registry and a running llm-ledger projection. */
export interface Harness {
  db: TestDatabase;
  store: EventStore;
  runner: ProjectionRunner;
  /** Appends each call to its stream (session-<id> or llm-<projectId>); returns the event ids. */
  record(calls: readonly CallInput[]): Promise<string[]>;
  /** Waits until the projection has applied everything appended so far through `record` or `appended`. */
  caughtUp(): Promise<void>;
  /** Notes an append made directly on the store, for caughtUp. */
  appended(position: Position): void;
  close(): Promise<void>;
}

export async function createHarness(options: { batchSize?: number } = {}): Promise<Harness> {
  const db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations]);
  const store = createPostgresEventStore({ pool: db.pool, connectionString: db.url, upcast });
  const runner = createProjectionRunner({
    pool: db.pool,
    store,
    projections: [llmLedgerProjection],
    pollIntervalMs: 20,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
  await runner.start();
  // Appends of other spec files' transactions can hold back what the log lets readers see, so
  // "no events behind" can be true before our own appends are readable: wait for their position.
  let last: Position = START;
  const appended = (position: Position): void => {
    if (comparePositions(position, last) > 0) last = position;
  };
  return {
    db,
    store,
    runner,
    async record(calls) {
      const byStream = new Map<string, ReturnType<typeof toAppend>[]>();
      for (const call of calls) {
        const stream = streamForLlmCall(call);
        const events = byStream.get(stream) ?? [];
        events.push(toAppend('LlmCallRecorded', call));
        byStream.set(stream, events);
      }
      // Large streams go in slices: one append is one transaction and one statement.
      for (const [stream, events] of byStream) {
        for (let i = 0; i < events.length; i += 500) {
          appended((await store.append(stream, events.slice(i, i + 500))).position);
        }
      }
      return [...byStream.values()].flat().map((e) => e.eventId);
    },
    appended,
    async caughtUp() {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const [status] = await projectionStatus(db.pool, store, [llmLedgerProjection]);
        const live = status?.generations.find((g) => g.generation === status.liveGeneration);
        if (status?.state === 'failed') throw new Error(`llm-ledger failed: ${JSON.stringify(status)}`);
        if (live && comparePositions(live.checkpoint, last) >= 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('llm-ledger did not catch up');
    },
    async close() {
      await runner.stop();
      await store.close();
      await db.close();
    },
  };
}
