import { type Logger, type Pool, type PoolClient, silentLogger } from '@parley/platform';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  ReadStreamOptions,
  RecordedEvent,
  Upcast,
} from '../types.js';
import { WrongExpectedVersionError } from '../types.js';
import {
  AppendOrderConflictError,
  checkAppendInput,
  resolveRefusal,
  type StatementAppend,
  statementAppend,
  tryAppend,
} from './append.js';
import { type StreamAppend, tryAppendMany } from './appendMany.js';
import { assertLogNotAhead, LogAheadOfClusterError } from './assertLogNotAhead.js';
import { countRowsAfter, readAllRows, readFirstRows, readHead, readStreamRows } from './read.js';
import { toRecordedEvent } from './rows.js';
import { subscribeAll } from './subscribe.js';
import { createWakeups } from './wakeups.js';

export interface PostgresEventStoreOptions {
  /** The caller's pool; close() leaves it open. */
  pool: Pool;
  /** For the LISTEN connection. Omitted: the pool's own, if it was made from one; else readers only poll. */
  connectionString?: string;
  logger?: Logger;
  /** How often an idle subscriber reads when no wake-up arrives. Default 500 ms. */
  pollIntervalMs?: number;
  /** Applied to every event read (readStream, readAll, subscribeAll). Must keep ids and positions. */
  upcast?: Upcast;
  /** pg_notify / LISTEN channel of the wake-ups. Default `parley_log`. */
  notifyChannel?: string;
  /**
   * Least time between two wake-ups sent to other processes (pg_notify): the first append after a
   * quiet spell notifies at once, later ones within the interval share one notify at its end.
   * Default 5 ms (NOTIFY_INTERVAL_MS); 0 sends the next as soon as the previous one returns.
   */
  notifyIntervalMs?: number;
}

export interface PostgresEventStore extends EventStore {
  /**
   * The same append inside the caller's open transaction (READ COMMITTED): the
   * caller commits or rolls back, then calls notifyAppended() after a commit.
   * A refused append rolls back only its own work (a savepoint), so the
   * transaction stays usable. May throw AppendOrderConflictError: retry the
   * whole transaction.
   */
  appendWith(
    client: PoolClient,
    stream: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<AppendResult>;
  /**
   * The append as a part of the caller's own statement (StatementAppend): the caller runs it,
   * then calls notifyAppended() after it committed.
   */
  statementAppend(
    stream: string,
    events: readonly EventToAppend[],
    options?: AppendOptions,
  ): Promise<StatementAppend>;
  /** Wakes readers now (call after committing a transaction that used appendWith or statementAppend). */
  notifyAppended(): void;
  /**
   * Several appends in one round trip and one transaction of their own, in the order given: all
   * or nothing. A refused expected revision throws WrongExpectedVersionError (of the first stream
   * refused); null when an event id is already in the log. Either way nothing was written; append
   * stream by stream to learn which ids (and to get the original results of a retried batch).
   */
  tryAppendAll(appends: readonly StreamAppend[]): Promise<AppendResult[] | null>;
  /** The first event (revision 0) of each of these streams that exists, in one query. */
  readFirstEvents(streams: readonly string[]): Promise<Map<string, RecordedEvent>>;
}

const ORDER_CONFLICT_RETRIES = 10;

export function createPostgresEventStore(options: PostgresEventStoreOptions): PostgresEventStore {
  const { pool, upcast } = options;
  const logger = options.logger ?? silentLogger();
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  if (!Number.isFinite(pollIntervalMs) || pollIntervalMs < 1) {
    throw new RangeError(`pollIntervalMs must be a positive number of milliseconds, got ${pollIntervalMs}`);
  }
  const closing = new AbortController();
  const wakeups = createWakeups({
    pool,
    channel: options.notifyChannel ?? 'parley_log',
    connectionString: options.connectionString ?? pool.options.connectionString,
    logger,
    ...(options.notifyIntervalMs === undefined ? {} : { notifyIntervalMs: options.notifyIntervalMs }),
  });

  // Checked once before the first operation; a refusal sticks, a failed check is retried.
  let checked: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    if (closing.signal.aborted) return Promise.reject(new Error('the event store is closed'));
    checked ??= assertLogNotAhead(pool).catch((err: unknown) => {
      if (!(err instanceof LogAheadOfClusterError)) checked = undefined;
      throw err;
    });
    return checked;
  };

  const readBatch = async (after: RecordedEvent['position'], maxCount: number, types?: readonly string[]) => {
    await ready();
    const rows = await readAllRows(pool, { after, maxCount, ...(types ? { eventTypes: types } : {}) });
    return rows.map((row) => toRecordedEvent(row, upcast));
  };

  // One call per attempt, its own transaction (one round trip); only an order
  // conflict is retried (a new transaction id is larger than every committed one).
  const appendInOwnTransaction = async (
    stream: string,
    events: readonly EventToAppend[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> => {
    for (let attempt = 1; ; attempt++) {
      const outcome = await tryAppend(pool, stream, events, expected);
      if (outcome.kind === 'appended') {
        wakeups.appended();
        return outcome.result;
      }
      if (outcome.kind !== 'order_conflict') return resolveRefusal(pool, stream, events, expected);
      if (attempt >= ORDER_CONFLICT_RETRIES) throw new AppendOrderConflictError(stream);
    }
  };

  return {
    async append(stream, events, options) {
      checkAppendInput(stream, events, options?.expectedRevision ?? 'any');
      await ready();
      return appendInOwnTransaction(stream, events, options?.expectedRevision ?? 'any');
    },

    async appendWith(client, stream, events, options) {
      const expected = options?.expectedRevision ?? 'any';
      checkAppendInput(stream, events, expected);
      await ready();
      await client.query('savepoint parley_append');
      const outcome = await tryAppend(client, stream, events, expected).catch(async (err: unknown) => {
        await client.query('rollback to savepoint parley_append').catch(() => {});
        throw err;
      });
      if (outcome.kind === 'appended') return outcome.result;
      await client.query('rollback to savepoint parley_append');
      if (outcome.kind === 'order_conflict') throw new AppendOrderConflictError(stream);
      return resolveRefusal(client, stream, events, expected);
    },

    async statementAppend(stream, events, options) {
      const expected = options?.expectedRevision ?? 'any';
      checkAppendInput(stream, events, expected);
      await ready();
      return statementAppend(stream, events, expected);
    },

    notifyAppended: () => wakeups.appended(),

    async tryAppendAll(appends) {
      if (appends.length === 0) return [];
      await ready();
      for (let attempt = 1; ; attempt++) {
        const outcome = await tryAppendMany(pool, appends);
        if (outcome.kind === 'appended') {
          wakeups.appended();
          return outcome.results;
        }
        if (outcome.kind === 'duplicate_event_id') return null;
        if (outcome.kind === 'wrong_expected_version') {
          const actual = await pool.query<{ revision: string }>(
            'select revision::text as revision from streams where stream_id = $1',
            [outcome.stream],
          );
          const revision = actual.rows[0]?.revision;
          throw new WrongExpectedVersionError(
            outcome.stream,
            outcome.expected,
            revision === undefined ? 'no_stream' : BigInt(revision),
          );
        }
        if (attempt >= ORDER_CONFLICT_RETRIES) throw new AppendOrderConflictError(appends[0]!.stream);
      }
    },

    async readFirstEvents(streams) {
      await ready();
      const rows = await readFirstRows(pool, streams);
      return new Map(rows.map((row) => [row.stream_id, toRecordedEvent(row, upcast)]));
    },

    async *readStream(stream, options: ReadStreamOptions = {}) {
      await ready();
      const direction = options.direction ?? 'forwards';
      let remaining = Math.floor(options.maxCount ?? Number.POSITIVE_INFINITY);
      let from = options.fromRevision;
      while (remaining > 0) {
        const pageSize = Math.min(remaining, 500);
        const rows = await readStreamRows(pool, stream, from, direction, pageSize);
        for (const row of rows) yield toRecordedEvent(row, upcast);
        const last = rows.at(-1);
        if (!last || rows.length < pageSize) return;
        remaining -= rows.length;
        from = BigInt(last.stream_revision) + (direction === 'forwards' ? 1n : -1n);
        if (from < 0n) return;
      }
    },

    async readAll(options) {
      await ready();
      return (await readAllRows(pool, options)).map((row) => toRecordedEvent(row, upcast));
    },

    subscribeAll(options) {
      // Listening starts with the first subscription, not its first read, so
      // that no wake-up between the two is missed.
      wakeups.listen();
      return subscribeAll({ readBatch, wakeups, pollIntervalMs, closing: closing.signal }, options);
    },

    async head(options) {
      await ready();
      return readHead(pool, options);
    },

    wakeups() {
      wakeups.listen();
      return wakeups;
    },

    async countAfter(after, eventTypes, cap) {
      await ready();
      return countRowsAfter(pool, after, eventTypes, cap);
    },

    async close() {
      closing.abort();
      await wakeups.close();
    },
  };
}
