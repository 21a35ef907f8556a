import { EventStoreDBClient, FORWARDS } from '@eventstore/db-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEventStoreContract } from '../testing/contract.js';
import { collect } from '../testing/helpers.js';
import type { EventStore, EventToAppend } from '../types.js';
import { createEventStoreDbEventStore } from './index.js';
import { SCHEMA_VERSION_KEY } from './mapping.js';

const url = process.env.EVENTSTORE_URL;

if (!url) {
  console.warn(
    [
      '',
      '!! EventStoreDB contract suite SKIPPED: EVENTSTORE_URL is not set.',
      '!! No EventStoreDB can run on this machine (no Docker, no binary), so the adapter is covered here by',
      '!! its unit specs and the contract suite on the in-memory stand-in (eventstoredbStandIn.unit.spec.ts).',
      '!! Against a server (e.g. `docker run -p 2113:2113 eventstore/eventstore:24.10',
      '!! --insecure --run-projections=All`), run:',
      '!!   EVENTSTORE_URL=esdb://localhost:2113?tls=false npx vitest run packages/eventstore',
      '',
    ].join('\n'),
  );
}

const events = (n: number, schemaVersion?: number): EventToAppend[] =>
  Array.from({ length: n }, (_, i) => ({
    eventId: crypto.randomUUID(),
    type: 'EsdbSpecEvent',
    ...(schemaVersion ? { schemaVersion } : {}),
    data: { i },
    metadata: { tenantId: 'tenant-esdb-spec' },
  }));

describe.skipIf(!url)('EventStoreDB adapter', () => {
  describeEventStoreContract(
    'eventstoredb',
    async () => {
      const store = createEventStoreDbEventStore({ connectionString: url! });
      return { store, teardown: () => store.close() };
    },
    { uniqueEventIdsAcrossStreams: false },
  );

  describe('EventStoreDB specifics', () => {
    let client: EventStoreDBClient;
    let store: EventStore;

    beforeAll(() => {
      client = EventStoreDBClient.connectionString(url!);
      store = createEventStoreDbEventStore({ client });
    });

    afterAll(async () => {
      await store.close();
      await client.dispose();
    });

    it('keeps schemaVersion in the stored metadata and strips it on read', async () => {
      const stream = `esdb-spec-${crypto.randomUUID()}`;
      await store.append(stream, events(1, 3), { expectedRevision: 'no_stream' });
      const [raw] = await collect(client.readStream(stream));
      expect(raw?.event?.metadata).toEqual({ tenantId: 'tenant-esdb-spec', [SCHEMA_VERSION_KEY]: 3 });
      const [read] = await collect(store.readStream(stream));
      expect(read).toMatchObject({ schemaVersion: 3, metadata: { tenantId: 'tenant-esdb-spec' } });
    });

    it('sees the server read $all from a position inclusively, which readAll then excludes', async () => {
      const stream = `esdb-spec-${crypto.randomUUID()}`;
      const { position } = await store.append(stream, events(1));
      const [raw] = await collect(
        client.readAll({ fromPosition: position, direction: FORWARDS, maxCount: 1 }),
      );
      expect(raw?.event?.position).toEqual(position);
      const after = await store.readAll({ after: position, maxCount: 100 });
      expect(after.every((e) => e.stream !== stream)).toBe(true);
    });

    it('leaves system records out of readAll, countAfter and head', async () => {
      const before = await store.head();
      const stream = `esdb-spec-${crypto.randomUUID()}`;
      const appended = await store.append(stream, events(1));
      // Writes a `$metadata` event to `$$<stream>`, after ours in the log.
      await client.setStreamMetadata(stream, { maxAge: 86_400 });
      const read = await store.readAll({ after: before?.position, maxCount: 10_000 });
      expect(read.some((e) => e.type.startsWith('$') || e.stream.startsWith('$'))).toBe(false);
      expect(read.map((e) => e.stream)).toContain(stream);
      const head = await store.head();
      expect(head && head.position.commit >= appended.position.commit).toBe(true);
    });

    it("relies on the server's own dedupe for a retry at its first expected revision", async () => {
      const serverOnly = createEventStoreDbEventStore({ client, idCheckDepth: 0 });
      const stream = `esdb-spec-${crypto.randomUUID()}`;
      const batch = events(2);
      const first = await serverOnly.append(stream, batch, { expectedRevision: 'no_stream' });
      await serverOnly.append(stream, events(1), { expectedRevision: first.nextRevision });
      const retried = await serverOnly.append(stream, batch, { expectedRevision: 'no_stream' });
      expect(retried.position).toEqual(first.position);
      expect(await collect(serverOnly.readStream(stream))).toHaveLength(3);
    });
  });
});
