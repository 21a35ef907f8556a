import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreMigrations } from '../migrations.js';
import { collect, openSubscription, readAllOf, uniqueName, uniqueType } from '../testing/helpers.js';
import type { RecordedEvent } from '../types.js';
import { createPostgresEventStore, type PostgresEventStore } from './createPostgresEventStore.js';

const type = uniqueType('Greeted');

/** Version 1 stored `name`; version 2 calls it `fullName`. */
const upcast = (event: RecordedEvent): RecordedEvent =>
  event.type === type && event.schemaVersion === 1
    ? { ...event, schemaVersion: 2, data: { fullName: event.data.name } }
    : event;

let db: TestDatabase;
let upcasting: PostgresEventStore;
let raw: PostgresEventStore;
const stream = uniqueName('greetings');

beforeAll(async () => {
  db = await createTestDatabase([eventStoreMigrations]);
  upcasting = createPostgresEventStore({ pool: db.pool, upcast });
  raw = createPostgresEventStore({ pool: db.pool });
  await raw.append(stream, [
    { eventId: crypto.randomUUID(), type, schemaVersion: 1, data: { name: 'Ada' } },
    { eventId: crypto.randomUUID(), type, schemaVersion: 2, data: { fullName: 'Grace' } },
  ]);
});
afterAll(async () => {
  await upcasting.close();
  await raw.close();
  await db.close();
});

const current = [
  { schemaVersion: 2, data: { fullName: 'Ada' } },
  { schemaVersion: 2, data: { fullName: 'Grace' } },
];

describe('upcasting on read', () => {
  it('applies to readStream, readAll and subscribeAll', async () => {
    expect(await collect(upcasting.readStream(stream))).toMatchObject(current);
    expect(await readAllOf(upcasting, { eventTypes: [type], expected: 2 })).toMatchObject(current);
    const sub = openSubscription(upcasting, { eventTypes: [type] });
    try {
      expect(await sub.take(2)).toMatchObject(current);
    } finally {
      sub.controller.abort();
    }
  });

  it('never rewrites the log', async () => {
    expect(await collect(raw.readStream(stream))).toMatchObject([
      { schemaVersion: 1, data: { name: 'Ada' } },
      { schemaVersion: 2, data: { fullName: 'Grace' } },
    ]);
  });
});
