import type { EventToAppend, ExpectedRevision } from '../types.js';

/**
 * The append of one event as one plain statement (migrations/0004_append_one.sql; docs/log.md
 * "Append"): take the stream row, then insert the event, in one `with taken as (…) insert`. No
 * PL/pgSQL call: most appends carry one event (a turn's message, a webhook's fact), and the
 * function's per-call setup cost more than the two statements it ran.
 *
 * Taking the row checks the expected revision (no row: refused, nothing written, no sequence
 * number spent) and the per-stream order guard: the row's `last_transaction_id`, read on its
 * latest version after any lock wait, newer than this transaction raises SQLSTATE PLA01.
 */
const GUARDED_TRANSACTION = `case when s.last_transaction_id > pg_current_xact_id()
    then parley_append_order_conflict($1) else pg_current_xact_id() end`;

const TAKE_BY_KIND = {
  revision: `update streams as s set revision = s.revision + 1, last_transaction_id = ${GUARDED_TRANSACTION}
    where s.stream_id = $1 and s.revision = $7::bigint returning s.revision`,
  stream_exists: `update streams as s set revision = s.revision + 1, last_transaction_id = ${GUARDED_TRANSACTION}
    where s.stream_id = $1 returning s.revision`,
  no_stream: `insert into streams as s (stream_id, revision, last_transaction_id) values ($1, 0, pg_current_xact_id())
    on conflict (stream_id) do nothing returning s.revision`,
} as const;

type TakeKind = keyof typeof TAKE_BY_KIND;

const statement = (kind: TakeKind) => ({
  name: `parley_append_one_${kind}`,
  text: `with taken as (${TAKE_BY_KIND[kind]})
    insert into events (stream_id, stream_revision, event_id, type, schema_version, data, metadata)
    select $1, taken.revision, $2, $3, $4, $5, $6 from taken
    returning stream_revision::text as next_revision, position::text as last_position,
      transaction_id::text as xact_id`,
});

const STATEMENTS = {
  revision: statement('revision'),
  stream_exists: statement('stream_exists'),
  no_stream: statement('no_stream'),
} as const;

/**
 * The query config of a one-event append (no row back: the expected revision was refused), or
 * undefined for `'any'`, which stays a call of parley_append: its row is taken by an `insert …
 * on conflict do update`, whose values are computed before the conflict check, so this statement
 * would take its transaction id before waiting for the row; appenders that get the row first, with
 * newer ids, would then refuse it (the order guard) again and again under contention. The function
 * takes the id after the wait. A refusal of `'no_stream'` needs no order, so its early id is harmless.
 */
export function appendOneQuery(stream: string, event: EventToAppend, expected: ExpectedRevision) {
  if (expected === 'any') return undefined;
  const values: unknown[] = [
    stream,
    event.eventId,
    event.type,
    event.schemaVersion ?? 1,
    JSON.stringify(event.data),
    JSON.stringify(event.metadata ?? {}),
  ];
  if (typeof expected === 'bigint') {
    values.push(String(expected));
    return { ...STATEMENTS.revision, values };
  }
  return { ...STATEMENTS[expected], values };
}
