import type { Pool, PoolClient } from '@parley/platform';
import { ParleyError } from '@parley/platform/errors';
import {
  type AppendResult,
  EventIdConflictError,
  type EventToAppend,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '../types.js';
import { appendOneQuery } from './appendOne.js';

export type Queryable = Pool | PoolClient;

/**
 * The stream's revision moved between taking its row and inserting its events
 * in an order the log cannot express: the transaction got its id before an
 * earlier appender of the same stream committed (appendWith after other writes,
 * or two 'any' appends racing for the row). Retry the whole transaction: a new
 * transaction id is larger than every committed one. `append` retries itself.
 */
export class AppendOrderConflictError extends ParleyError {
  override readonly name = 'AppendOrderConflictError';
  constructor(readonly stream: string) {
    super(
      'APPEND_ORDER_CONFLICT',
      500,
      `append to ${stream}: an earlier transaction appended to this stream after this transaction started; retry the transaction`,
    );
  }
}

export type AppendAttempt =
  | { kind: 'appended'; result: AppendResult }
  | { kind: 'wrong_expected_version' }
  | { kind: 'duplicate_event_id' }
  | { kind: 'order_conflict' };

/**
 * One call of `parley_append` (migrations/0002_append_function.sql): it takes
 * the stream row (checking the expected revision and locking the row until
 * commit), checks the per-stream order and inserts every event, in one round
 * trip. Each statement inside it sees what committed before it started (READ
 * COMMITTED, a VOLATILE function), so the insert sees the previous appender's
 * events. A refused expected revision returns no row and writes nothing, not
 * even a sequence number. Events travel as one JSON parameter (measured faster
 * than unnest of five arrays for 1,000 events: docs/log.md).
 */
const APPEND_CALL =
  'select next_revision::text, last_position::text, xact_id::text from parley_append($1, $2, $3)';

type AppendRow = { next_revision: string; last_position: string | null; xact_id: string };

/** A batch of one: one plain statement (./appendOne.ts) unless `'any'`; else one call of parley_append. */
function callFor(stream: string, events: readonly EventToAppend[], expected: ExpectedRevision) {
  const [only] = events;
  const one = events.length === 1 && only !== undefined ? appendOneQuery(stream, only, expected) : undefined;
  if (one !== undefined) return one;
  return {
    name: 'parley_append',
    text: APPEND_CALL,
    values: [stream, String(expected), eventsPayload(events)],
  };
}

function isEventIdViolation(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === 'events_event_id_key';
}

/** The function's order guard refused the append (SQLSTATE PLA01): retry the whole transaction. */
export function isOrderConflict(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'PLA01';
}

/** The events as parley_append takes them: one JSON array. */
export function eventsPayload(events: readonly EventToAppend[]): string {
  return JSON.stringify(
    events.map((e) => ({
      event_id: e.eventId,
      type: e.type,
      schema_version: e.schemaVersion ?? 1,
      data: e.data,
      metadata: e.metadata ?? {},
    })),
  );
}

/**
 * An append as one part of the caller's own statement (its writes and the events in one round
 * trip, atomic without begin/commit): `call` is the append function as a FROM item, its arguments
 * SQL expressions of the caller's (parameter references for `values`, in their order: the stream,
 * the expected revision, the events). Its row is the append's (`next_revision`, `last_position`,
 * `xact_id`), none when the expected revision is refused. A duplicate event id fails the statement
 * with a unique violation on `events_event_id_key`, an order conflict with isOrderConflict (retry
 * the statement). After the commit, call the store's notifyAppended().
 */
export interface StatementAppend {
  call(args: { stream: string; expected: string; events: string }): string;
  values: readonly [stream: string, expected: string, events: string];
}

export function statementAppend(
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): StatementAppend {
  return {
    call: (args) => `parley_append(${args.stream}::text, ${args.expected}::text, ${args.events}::jsonb)`,
    values: [stream, String(expected), eventsPayload(events)],
  };
}

/**
 * One attempt. On the pool it is its own (autocommitted) transaction; on a
 * client in an open transaction it runs inside it, and the caller commits or
 * rolls back (a thrown error leaves the transaction aborted: use a savepoint).
 */
export async function tryAppend(
  db: Queryable,
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): Promise<AppendAttempt> {
  let row: AppendRow | undefined;
  try {
    row = (await db.query<AppendRow>(callFor(stream, events, expected))).rows[0];
  } catch (err) {
    if (isEventIdViolation(err)) return { kind: 'duplicate_event_id' };
    if (isOrderConflict(err)) return { kind: 'order_conflict' };
    throw err;
  }
  if (!row) return { kind: 'wrong_expected_version' };
  if (row.last_position === null) throw new Error(`append to ${stream}: no event was inserted`);
  return {
    kind: 'appended',
    result: {
      nextRevision: BigInt(row.next_revision),
      position: { commit: BigInt(row.xact_id), prepare: BigInt(row.last_position) },
    },
  };
}

/**
 * After a refused attempt (rolled back): an append whose event ids are all in
 * this stream already is a retry and gets the original result; ids recorded
 * in part or in another stream are a conflict; otherwise the expected revision
 * was wrong.
 */
export async function resolveRefusal(
  db: Queryable,
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  const { rows } = await db.query<{
    event_id: string;
    stream_id: string;
    revision: string;
    position: string;
    transaction_id: string;
  }>(
    `select event_id::text as event_id, stream_id, stream_revision::text as revision,
       position::text as position, transaction_id::text as transaction_id
     from events where event_id = any($1::uuid[])`,
    [events.map((e) => e.eventId)],
  );
  if (rows.length === events.length && rows.every((r) => r.stream_id === stream)) {
    const last = rows.reduce((a, b) => (BigInt(b.revision) > BigInt(a.revision) ? b : a));
    return {
      nextRevision: BigInt(last.revision),
      position: { commit: BigInt(last.transaction_id), prepare: BigInt(last.position) },
    };
  }
  if (rows.length > 0) throw new EventIdConflictError(stream, rows.map((r) => r.event_id).sort());
  const current = await db.query<{ revision: string }>(
    'select revision::text as revision from streams where stream_id = $1',
    [stream],
  );
  const actual = current.rows[0]?.revision;
  throw new WrongExpectedVersionError(stream, expected, actual === undefined ? 'no_stream' : BigInt(actual));
}

/** Refuses what the database would otherwise half-accept or report obscurely. */
export function checkAppendInput(
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): void {
  if (stream.length === 0) throw new TypeError('append: the stream name is empty');
  if (events.length === 0) throw new TypeError(`append to ${stream}: a batch needs at least one event`);
  if (typeof expected === 'bigint' && expected < 0n) {
    throw new RangeError(`append to ${stream}: expected revision ${expected} is negative; use 'no_stream'`);
  }
  const ids = new Set<string>();
  for (const e of events) {
    const id = e.eventId.toLowerCase();
    if (ids.has(id))
      throw new TypeError(`append to ${stream}: event id ${e.eventId} appears twice in the batch`);
    ids.add(id);
  }
}
