import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { makeEvents, uniqueName } from '../testing/helpers.js';
import type { RecordedEvent } from '../types.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';
import { RECORDED_AT_MS } from './rows.js';

/**
 * Reads take recorded_at as whole milliseconds (rows.ts): the Date must be the one pg's own parse
 * of the timestamptz text gave, which drops the microseconds.
 */
let db: TestDatabase;
let store: PostgresEventStore;

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
  store = createPostgresEventStore({ pool: db.pool });
});
afterAll(async () => {
  await store.close();
  await db.close();
});

it('gives the recordedAt that parsing recorded_at gives', async () => {
  const stream = uniqueName('recorded-at');
  // One transaction each: each gets its own recorded_at.
  for (let i = 0; i < 20; i++) await store.append(stream, makeEvents(1, 'test.recorded'));
  const events: RecordedEvent[] = [];
  for await (const event of store.readStream(stream)) events.push(event);
  const { rows } = await db.pool.query<{ event_id: string; recorded_at: Date }>(
    'select event_id::text, recorded_at from events where stream_id = $1',
    [stream],
  );
  expect(events.map((e) => e.recordedAt.getTime())).toEqual(
    events.map((e) => rows.find((r) => r.event_id === e.eventId)?.recorded_at.getTime()),
  );
});

it('computes the milliseconds as pg parses the text, microseconds and dates before 1970 included', async () => {
  const micros = fc.bigInt({ min: -2_000_000_000_000_000n, max: 4_000_000_000_000_000n });
  await fc.assert(
    fc.asyncProperty(fc.array(micros, { minLength: 1, maxLength: 50 }), async (values) => {
      const { rows } = await db.pool.query<{ t: Date; ms: number }>(
        `select e.recorded_at as t, ${RECORDED_AT_MS} as ms
           from (select to_timestamp(0) + make_interval(secs => v::numeric / 1000000) as recorded_at
                   from unnest($1::bigint[]) v) e`,
        [values.map(String)],
      );
      for (const { t, ms } of rows) expect(new Date(ms).getTime()).toBe(t.getTime());
    }),
    { numRuns: 50 },
  );
});
