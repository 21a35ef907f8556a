import {
  AppendOrderConflictError,
  type EventStore,
  type EventToAppend,
  type PostgresEventStore,
} from '@parley/eventstore';
import type { Pool, PoolClient } from '@parley/platform';

/** What a LogTransaction body can do: write on `client`, and append events that commit with it. */
export interface LogTransaction {
  readonly client: PoolClient;
  /** Appends in the transaction (PostgreSQL log) or right after its commit (another log). */
  append(stream: string, events: readonly EventToAppend[]): Promise<void>;
}

const ORDER_CONFLICT_RETRIES = 10;

const hasAppendWith = (store: EventStore): store is PostgresEventStore =>
  typeof (store as Partial<PostgresEventStore>).appendWith === 'function';

/**
 * Runs `fn` in one database transaction whose appends to the log commit with it: rows, pg-boss
 * jobs (pg-boss's `db` option on `tx.client`) and events all happen or none does. On the
 * PostgreSQL log, appends use `appendWith` on the same client (a commit order conflict with
 * another appender retries the whole transaction, as ingest does, so `fn` must be safe to run
 * again); on another log (EventStoreDB) the events are appended after the commit, so a crash in
 * between loses them — callers whose events must survive that re-append them later with the same
 * derived event ids (the log ignores a repeat).
 */
export async function withLogTransaction<T>(
  pool: Pool,
  store: EventStore,
  fn: (tx: LogTransaction) => Promise<T>,
): Promise<T> {
  const sameTransaction = hasAppendWith(store);
  for (let attempt = 0; ; attempt++) {
    const client = await pool.connect();
    const later: Array<[string, readonly EventToAppend[]]> = [];
    try {
      await client.query('begin');
      const value = await fn({
        client,
        append: async (stream, events) => {
          if (sameTransaction) await store.appendWith(client, stream, events);
          else later.push([stream, events]);
        },
      });
      await client.query('commit');
      if (sameTransaction) store.notifyAppended();
      for (const [stream, events] of later) await store.append(stream, events);
      return value;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      if (err instanceof AppendOrderConflictError && attempt < ORDER_CONFLICT_RETRIES) continue;
      throw err;
    } finally {
      client.release();
    }
  }
}
