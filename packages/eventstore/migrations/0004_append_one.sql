-- Appends of one event as one plain statement (docs/log.md "Append", "Per-stream order guard").
--
-- The per-stream order guard moves to the stream row: each stream remembers the transaction that
-- appended to it last (`last_transaction_id`), which is the transaction of the stream's previous
-- event (the row and the events are written by the same transaction, and every append takes the
-- row). Taking the row compares it with this transaction's id, on the row's latest version (an
-- UPDATE under READ COMMITTED re-reads the row it waited for), so the guard no longer needs a
-- statement with a snapshot taken after the wait: the append of one event becomes one statement,
-- `with taken as (take the row) insert into events ... from taken`, sent by the client
-- (packages/eventstore/src/postgres/appendOne.ts) without a PL/pgSQL call.

alter table streams add column last_transaction_id xid8;
update streams s set last_transaction_id = e.transaction_id
  from events e
  where e.stream_id = s.stream_id and e.stream_revision = s.revision;
-- (A stream row without its last event cannot be written by the log; should one exist, it has
-- no previous event to order against.)
update streams set last_transaction_id = '0' where last_transaction_id is null;
alter table streams alter column last_transaction_id set not null;

-- The guard's refusal: SQLSTATE PLA01, as before. Called only when the stream's last transaction
-- is newer than this one (in a CASE), so the common path calls no function.
create function parley_append_order_conflict(p_stream text) returns xid8
language plpgsql
as $fn$
begin
  raise exception 'append to %: an earlier transaction appended to this stream after this transaction started', p_stream
    using errcode = 'PLA01', hint = 'parley_append_order_conflict';
end
$fn$;

-- parley_append (several events; parley_append_many calls it): the same steps, the guard on the
-- stream row instead of a look-up of the previous event.
create or replace function parley_append(p_stream text, p_expected text, p_events jsonb)
returns table (next_revision bigint, last_position bigint, xact_id xid8)
language plpgsql
volatile
as $fn$
declare
  v_count bigint := jsonb_array_length(p_events);
  v_revision bigint;
  v_first bigint;
  v_inserted bigint;
  v_position bigint;
  v_created boolean;
begin
  if p_expected = 'any' then
    -- No pg_current_xact_id() in VALUES: they are evaluated before the conflict check, and an id
    -- taken before waiting for the row would be older than the appenders that get the row first
    -- (each of them then refuses this one). A new row gets '0', then this transaction's id below.
    insert into streams as s (stream_id, revision, last_transaction_id)
      values (p_stream, v_count - 1, '0')
      on conflict (stream_id) do update set revision = s.revision + v_count,
        last_transaction_id = case when s.last_transaction_id > pg_current_xact_id()
          then parley_append_order_conflict(p_stream) else pg_current_xact_id() end
      returning s.revision, s.last_transaction_id = '0' into v_revision, v_created;
    if v_created then
      update streams set last_transaction_id = pg_current_xact_id() where stream_id = p_stream;
    end if;
  elsif p_expected = 'no_stream' then
    insert into streams as s (stream_id, revision, last_transaction_id)
      values (p_stream, v_count - 1, pg_current_xact_id())
      on conflict (stream_id) do nothing
      returning s.revision into v_revision;
  elsif p_expected = 'stream_exists' then
    update streams as s set revision = s.revision + v_count,
        last_transaction_id = case when s.last_transaction_id > pg_current_xact_id()
          then parley_append_order_conflict(p_stream) else pg_current_xact_id() end
      where s.stream_id = p_stream
      returning s.revision into v_revision;
  else
    update streams as s set revision = s.revision + v_count,
        last_transaction_id = case when s.last_transaction_id > pg_current_xact_id()
          then parley_append_order_conflict(p_stream) else pg_current_xact_id() end
      where s.stream_id = p_stream and s.revision = p_expected::bigint
      returning s.revision into v_revision;
  end if;
  if v_revision is null then
    return;
  end if;
  v_first := v_revision - v_count + 1;

  with inserted as (
    insert into events (stream_id, stream_revision, event_id, type, schema_version, data, metadata)
    select p_stream, v_first + e.ord - 1, e.event_id, e.type, e.schema_version, e.data, e.metadata
    from rows from (jsonb_to_recordset(p_events)
      as (event_id uuid, type text, schema_version int, data jsonb, metadata jsonb))
      with ordinality as e(event_id, type, schema_version, data, metadata, ord)
    returning position
  )
  select count(*), max(position) into v_inserted, v_position from inserted;

  return query select v_revision, v_position, pg_current_xact_id();
end
$fn$;
