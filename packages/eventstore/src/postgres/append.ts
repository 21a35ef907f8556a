import type { Pool, PoolClient } from '@parley/platform';
import { ParleyError } from '@parley/platform/errors';
import {
  type AppendResult,
  EventIdConflictError,
  type EventToAppend,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '../types.js';

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
 * The statement that takes the stream row: it checks the expected revision
 * and locks the row until commit. It runs before the events insert, so a
 * refused append spends no sequence number. It returns the stream's new
 * revision, or no row when the append is refused.
 */
function takeStreamRow(stream: string, count: number, expected: ExpectedRevision): [string, string[]] {
  const n = String(count);
  switch (expected) {
    case 'any':
      return [
        `insert into streams as s (stream_id, revision) values ($1, $2::bigint - 1)
         on conflict (stream_id) do update set revision = s.revision + $2::bigint
         returning s.revision::text as revision`,
        [stream, n],
      ];
    case 'no_stream':
      return [
        `insert into streams (stream_id, revision) values ($1, $2::bigint - 1)
         on conflict (stream_id) do nothing returning revision::text as revision`,
        [stream, n],
      ];
    case 'stream_exists':
      return [
        `update streams set revision = revision + $2::bigint where stream_id = $1
         returning revision::text as revision`,
        [stream, n],
      ];
    default:
      return [
        `update streams set revision = revision + $2::bigint where stream_id = $1 and revision = $3::bigint
         returning revision::text as revision`,
        [stream, n, String(expected)],
      ];
  }
}

/**
 * All events in one statement from one JSON parameter (measured faster than
 * unnest of five arrays for 1,000 events: docs/log.md). Positions come from the
 * sequence in batch order. The guard refuses the insert when the stream's
 * previous event belongs to a transaction with a larger id than ours, which
 * would put this stream's events out of revision order in the log.
 */
const INSERT_EVENTS = `
  with inserted as (
    insert into events (stream_id, stream_revision, event_id, type, schema_version, data, metadata)
    select $1, $2::bigint + e.ord - 1, e.event_id, e.type, e.schema_version, e.data, e.metadata
    from rows from (jsonb_to_recordset($3::jsonb)
      as (event_id uuid, type text, schema_version int, data jsonb, metadata jsonb))
      with ordinality as e(event_id, type, schema_version, data, metadata, ord)
    where coalesce(
      (select p.transaction_id from events p where p.stream_id = $1 and p.stream_revision = $2::bigint - 1)
        <= pg_current_xact_id(),
      true)
    returning position
  )
  select count(*)::int as inserted, max(position)::text as position,
    pg_current_xact_id()::text as transaction_id
  from inserted`;

function isEventIdViolation(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === 'events_event_id_key';
}

/** One attempt inside the caller's open transaction; leaves commit or rollback to the caller. */
export async function tryAppend(
  client: PoolClient,
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): Promise<AppendAttempt> {
  const [streamSql, streamParams] = takeStreamRow(stream, events.length, expected);
  const taken = await client.query<{ revision: string }>(streamSql, streamParams);
  const revision = taken.rows[0]?.revision;
  if (revision === undefined) return { kind: 'wrong_expected_version' };

  const nextRevision = BigInt(revision);
  const firstRevision = nextRevision - BigInt(events.length) + 1n;
  const payload = JSON.stringify(
    events.map((e) => ({
      event_id: e.eventId,
      type: e.type,
      schema_version: e.schemaVersion ?? 1,
      data: e.data,
      metadata: e.metadata ?? {},
    })),
  );
  let row: { inserted: number; position: string | null; transaction_id: string } | undefined;
  try {
    const res = await client.query(INSERT_EVENTS, [stream, String(firstRevision), payload]);
    row = res.rows[0];
  } catch (err) {
    if (isEventIdViolation(err)) return { kind: 'duplicate_event_id' };
    throw err;
  }
  if (!row || row.inserted !== events.length || row.position === null) return { kind: 'order_conflict' };
  return {
    kind: 'appended',
    result: { nextRevision, position: { commit: BigInt(row.transaction_id), prepare: BigInt(row.position) } },
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
