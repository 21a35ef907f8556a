/**
 * The peer in the benchmarks: Emmett's PostgreSQL event store (`@event-driven-io/emmett-postgresql`,
 * a root dev dependency), on the same PostgreSQL database as Parley's log (its own `emt_*` tables).
 * Appends go through its `appendToStream` (a transaction around its `emt_append_to_stream`
 * function); reading the log through `readMessagesBatch` (what its consumers pull with); a catch-up
 * through a consumer's reactor from the beginning, stopping when no messages are left.
 */
import { randomUUID } from 'node:crypto';
import { dumbo, endAllPools } from '@event-driven-io/dumbo';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import type { EventToAppend } from '@parley/eventstore';
import pg from 'pg';

export interface Peer {
  /** Appends with an exact expected version (0n: the stream does not exist yet); returns the next one. */
  append(stream: string, events: readonly EventToAppend[], expected: bigint): Promise<bigint>;
  /** Reads the whole log in batches; returns the events read. */
  readAll(batchSize: number): Promise<number>;
  /** A consumer from the beginning until caught up, counting events per type; returns the events seen. */
  catchUp(batchSize: number): Promise<number>;
  close(): Promise<void>;
}

export async function openPeer(connectionString: string): Promise<Peer> {
  // One pool of ours for Emmett and its reader, so that closing ends every connection (the bench
  // then drops the database, terminating whatever is left: an idle pool client would crash).
  const pool = new pg.Pool({ connectionString, max: 10 });
  pool.on('error', () => {});
  const store = getPostgreSQLEventStore(connectionString, {
    connectionOptions: { pool },
    schema: { autoMigration: 'CreateOrUpdate' },
  });
  await store.schema.migrate();
  const reader = dumbo({ connectionString, pool });
  return {
    async append(stream, events, expected) {
      const result = await store.appendToStream(
        stream,
        events.map((e) => ({ type: e.type, data: e.data, metadata: e.metadata ?? {} })),
        { expectedStreamVersion: expected },
      );
      return result.nextExpectedStreamVersion;
    },
    async readAll(batchSize) {
      let after = 0n;
      let read = 0;
      for (;;) {
        const batch = await readMessagesBatch(reader.execute, { after, batchSize });
        read += batch.messages.length;
        if (batch.messages.length === 0) return read;
        after = batch.currentGlobalPosition;
        if (!batch.areMessagesLeft) return read;
      }
    },
    async catchUp(batchSize) {
      const counts = new Map<string, number>();
      let seen = 0;
      const consumer = store.consumer({ stopWhen: { noMessagesLeft: true }, pulling: { batchSize } });
      consumer.reactor({
        processorId: `bench-catch-up-${randomUUID().slice(0, 8)}`,
        startFrom: 'BEGINNING',
        eachMessage: async (message) => {
          seen++;
          counts.set(message.type, (counts.get(message.type) ?? 0) + 1);
        },
      });
      await consumer.start();
      await consumer.close();
      return seen;
    },
    async close() {
      await reader.close();
      await store.close();
      // dumbo keeps pools per connection string; end them before the bench drops the database.
      await endAllPools();
      await pool.end().catch(() => {});
    },
  };
}
