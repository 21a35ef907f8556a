import { randomUUID } from 'node:crypto';
import { createPostgresEventStore, type EventToAppend, eventStoreMigrations } from '@parley/eventstore';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import {
  createProjectionRunner,
  projectionRunnerMigrations,
  projectionStatus,
  rebuildProjection,
} from '@parley/projection-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCounts } from './eventCounts.js';
import { eventCountsProjection } from './eventCountsProjection.js';

let db: TestDatabase;
let store: ReturnType<typeof createPostgresEventStore>;
beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations, projectionRunnerMigrations]);
  store = createPostgresEventStore({ pool: db.pool, connectionString: db.url });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

const event = (type: string, projectId?: string): EventToAppend => ({
  eventId: randomUUID(),
  type,
  data: {},
  metadata: projectId ? { projectId } : {},
});

/** Polls until the projection has applied every event appended so far. */
async function caughtUp(count: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const total = (await eventCounts(db.pool)).reduce((n, row) => n + row.count, 0);
    if (total === count) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('event-counts did not catch up');
}

describe('event-counts', () => {
  it('counts the log per project and type, survives a rebuild, and reports no lag', async () => {
    const runner = createProjectionRunner({ pool: db.pool, store, projections: [eventCountsProjection] });
    await runner.start();
    try {
      await store.append('session-a', [event('MessageReceived', 'p1'), event('AgentReplied', 'p1')]);
      await store.append('session-b', [event('MessageReceived', 'p1'), event('MessageReceived', 'p2')]);
      await store.append('audit-x', [event('KeyRotated')]);
      await caughtUp(5);

      const all = await eventCounts(db.pool);
      expect(all.map((r) => [r.projectId, r.eventType, r.count])).toEqual([
        ['-', 'KeyRotated', 1],
        ['p1', 'AgentReplied', 1],
        ['p1', 'MessageReceived', 2],
        ['p2', 'MessageReceived', 1],
      ]);
      expect(all[2]?.firstRecordedAt).toBeInstanceOf(Date);
      expect((await eventCounts(db.pool, { projectId: 'p2' })).map((r) => r.eventType)).toEqual([
        'MessageReceived',
      ]);

      const [status] = await projectionStatus(db.pool, store, [eventCountsProjection]);
      expect(status).toMatchObject({ state: 'ok', liveGeneration: 1 });
      expect(status?.generations[0]).toMatchObject({ eventsBehind: 0, secondsBehind: 0, eventsProcessed: 5 });

      const result = await rebuildProjection({ pool: db.pool, store, projection: eventCountsProjection });
      expect(result).toMatchObject({ generation: 2, eventsProcessed: 5 });
      expect(await eventCounts(db.pool)).toEqual(all);

      await store.append('session-a', [event('AgentReplied', 'p1')]);
      await caughtUp(6);
    } finally {
      await runner.stop();
    }
  });
});
