-- One-round-trip append (docs/log.md "Append"): the same two steps as before,
-- take the stream row, then insert the events, as one server-side call.
--
-- The function is VOLATILE and runs under READ COMMITTED, so each statement in
-- it takes a new snapshot: after waiting for the stream row, the order guard
-- and the insert see the previous appender's commit (appendFunction.int.spec.ts
-- checks this against the real database).
--
-- p_expected: 'any', 'no_stream', 'stream_exists' or a revision in decimal.
-- p_events: a JSON array of {event_id, type, schema_version, data, metadata}.
-- No row returned: the expected revision was refused; nothing was written and no
-- sequence number spent. The stream's previous event written by a transaction
-- newer than this one (the per-stream order guard): raises SQLSTATE PLA01
-- (`parley_append_order_conflict`), which undoes the stream row's update.
create function parley_append(p_stream text, p_expected text, p_events jsonb)
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
begin
  if p_expected = 'any' then
    insert into streams as s (stream_id, revision) values (p_stream, v_count - 1)
      on conflict (stream_id) do update set revision = s.revision + v_count
      returning s.revision into v_revision;
  elsif p_expected = 'no_stream' then
    insert into streams as s (stream_id, revision) values (p_stream, v_count - 1)
      on conflict (stream_id) do nothing
      returning s.revision into v_revision;
  elsif p_expected = 'stream_exists' then
    update streams as s set revision = s.revision + v_count where s.stream_id = p_stream
      returning s.revision into v_revision;
  else
    update streams as s set revision = s.revision + v_count
      where s.stream_id = p_stream and s.revision = p_expected::bigint
      returning s.revision into v_revision;
  end if;
  if v_revision is null then
    return;
  end if;
  v_first := v_revision - v_count + 1;

  -- A new statement, a new snapshot: the previous appender has committed.
  if v_first > 0 and exists (
    select 1 from events p
    where p.stream_id = p_stream and p.stream_revision = v_first - 1
      and p.transaction_id > pg_current_xact_id()
  ) then
    raise exception 'append to %: an earlier transaction appended to this stream after this transaction started', p_stream
      using errcode = 'PLA01', hint = 'parley_append_order_conflict';
  end if;

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
