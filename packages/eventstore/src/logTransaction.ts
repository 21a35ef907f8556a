import type { Pool, PoolClient } from '@parley/platform';
import { AppendOrderConflictError, type PostgresEventStore } from './postgres/index.js';
import type { EventStore, EventToAppend } from './types.js';

/** What a log transaction's body can do: write on `client`, and append events that commit with it. */
export interface LogTransaction {
  readonly client: PoolClient;
  /** Appends in the transaction (PostgreSQL log) or right after its commit (another log). */
  append(stream: string, events: readonly EventToAppend[]): Promise<void>;
}

/** Conflicts in a row before giving up (each retry gets a newer transaction id, so one is usually enough). */
const ORDER_CONFLICT_RETRIES = 10;

/** The PostgreSQL log: it can append on a caller's client, inside the caller's transaction. */
export const canAppendInTransaction = (store: EventStore): store is PostgresEventStore =>
  typeof (store as Partial<PostgresEventStore>).appendWith === 'function';

/**
 * Runs `body` on `client` — a body that opens and commits its own transaction there — with a
 * LogTransaction whose appends commit with that transaction: `appendWith` on the same client on the
 * PostgreSQL log; on another log (EventStoreDB) the events are appended after the body returns, so
 * a crash in between loses them (callers that must not lose them append them again later with the
 * same derived event ids: the log ignores a repeat). An append order conflict (another appender of
 * one of the streams committed out of transaction-id order; docs/log.md) throws through the body's
 * rollback and the body runs again, so it must be safe to run twice.
 */
export async function logTransactionOn<T>(
  client: PoolClient,
  store: EventStore,
  body: (tx: LogTransaction) => Promise<T>,
): Promise<T> {
  const sameTransaction = canAppendInTransaction(store);
  for (let attempt = 0; ; attempt++) {
    const later: Array<[string, readonly EventToAppend[]]> = [];
    let value: T;
    try {
      value = await body({
        client,
        append: async (stream, events) => {
          if (sameTransaction) await store.appendWith(client, stream, events);
          else later.push([stream, events]);
        },
      });
    } catch (err) {
      if (err instanceof AppendOrderConflictError && attempt < ORDER_CONFLICT_RETRIES) continue;
      throw err;
    }
    if (sameTransaction) store.notifyAppended();
    for (const [stream, events] of later) await store.append(stream, events);
    return value;
  }
}

/**
 * Runs `fn` in one database transaction (begin, commit; rollback on error) on `client`, its appends
 * committing with it (logTransactionOn). The caller owns `client` (connects and releases it).
 */
export async function withLogTransactionOn<T>(
  client: PoolClient,
  store: EventStore,
  fn: (tx: LogTransaction) => Promise<T>,
): Promise<T> {
  return logTransactionOn(client, store, async (tx) => {
    await client.query('begin');
    try {
      const value = await fn(tx);
      await client.query('commit');
      return value;
    } catch (err) {
      await client.query('rollback').catch(() => {});
      throw err;
    }
  });
}

/**
 * Runs `fn` in one database transaction on a client of `pool`, its appends committing with it
 * (logTransactionOn): rows, pg-boss jobs (pg-boss's `db` option on `tx.client`) and events all
 * happen or none does.
 */
export async function withLogTransaction<T>(
  pool: Pool,
  store: EventStore,
  fn: (tx: LogTransaction) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    return await withLogTransactionOn(client, store, fn);
  } finally {
    client.release();
  }
}
