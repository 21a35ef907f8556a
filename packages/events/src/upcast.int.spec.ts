import { createPostgresEventStore, eventStoreMigrations, type RecordedEvent } from '@parley/eventstore';
import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEvent, upcast } from './catalog.js';
import { llmStream } from './streams.js';
import { llmCallRecordedV1ExampleAsV2, llmCallRecordedV1ToAppend } from './testing/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
});
afterAll(() => db.close());

async function first(events: AsyncIterable<RecordedEvent>): Promise<RecordedEvent> {
  for await (const event of events) return event;
  throw new Error('no event');
}

/**
 * The event as readAll returns it. readAll shows an event once no older transaction of the cluster
 * can still commit before it (the log's ordering guarantee), so while other databases of the test
 * cluster are busy it can lag an append by a moment: poll.
 */
async function inReadAll(
  store: ReturnType<typeof createPostgresEventStore>,
  eventId: string,
): Promise<RecordedEvent> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = (await store.readAll({ maxCount: 10_000, eventTypes: ['LlmCallRecorded'] })).find(
      (e) => e.eventId === eventId,
    );
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`readAll never returned ${eventId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('an LlmCallRecorded v1 event in the real log', () => {
  it('is stored as v1, never rewritten, and read back as v2 through the catalog upcaster', async () => {
    const stream = llmStream(`proj_${crypto.randomUUID()}`);
    const raw = createPostgresEventStore({ pool: db.pool });
    const upcasting = createPostgresEventStore({ pool: db.pool, upcast });
    try {
      const v1 = llmCallRecordedV1ToAppend();
      await raw.append(stream, [v1], { expectedRevision: 'no_stream' });

      const stored = await db.pool.query('select schema_version, data from events where event_id = $1', [
        v1.eventId,
      ]);
      expect(stored.rows[0]).toEqual({ schema_version: 1, data: v1.data });

      const asStored = await first(raw.readStream(stream));
      expect(asStored.schemaVersion).toBe(1);

      for (const read of [
        await first(upcasting.readStream(stream)),
        await inReadAll(upcasting, v1.eventId),
      ]) {
        expect(read.schemaVersion).toBe(2);
        expect(read.data).toEqual(llmCallRecordedV1ExampleAsV2);
        expect(read).toMatchObject({ eventId: v1.eventId, stream, revision: 0n });
        const parsed = parseEvent(read);
        expect(parsed).toMatchObject({ known: true, type: 'LlmCallRecorded', schemaVersion: 2 });
      }
    } finally {
      await raw.close();
      await upcasting.close();
    }
  });
});
