-- Appends to several streams in one call and one transaction (docs/log.md "Appending to several
-- streams at once"): parley_append for each stream in the order given, all or nothing.
--
-- p_streams and p_expected: one element per append; p_events: a JSON array with one array of
-- events per append (the format of parley_append's p_events). One row per append, in order.
-- A refused expected revision raises SQLSTATE PLA02 (`parley_append_refused`, the stream in its
-- detail) and an event id
-- already in the log the unique violation of events_event_id_key: either way nothing is written,
-- and the caller appends stream by stream to learn which append was refused and why.
create function parley_append_many(p_streams text[], p_expected text[], p_events jsonb)
returns table (stream_id text, next_revision bigint, last_position bigint, xact_id xid8)
language plpgsql
volatile
as $fn$
declare
  v_appended record;
begin
  for i in 1 .. coalesce(array_length(p_streams, 1), 0) loop
    select * into v_appended from parley_append(p_streams[i], p_expected[i], p_events -> (i - 1));
    if v_appended.next_revision is null then
      raise exception 'append to %: expected revision % refused', p_streams[i], p_expected[i]
        using errcode = 'PLA02', hint = 'parley_append_refused', detail = p_streams[i];
    end if;
    stream_id := p_streams[i];
    next_revision := v_appended.next_revision;
    last_position := v_appended.last_position;
    xact_id := v_appended.xact_id;
    return next;
  end loop;
end
$fn$;
