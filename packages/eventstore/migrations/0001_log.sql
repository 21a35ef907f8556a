-- The log (DESIGN.md "The log store"; docs/log.md explains every choice).

-- Every event's place inside its appending transaction. Never a shared counter
-- row: a sequence hands out numbers without serialising appenders.
create sequence events_position_seq as bigint;

-- One row per stream: its last revision (0-based). Appends lock this row first,
-- which is the optimistic-concurrency check and the per-stream serialisation.
create table streams (
  stream_id text primary key,
  revision bigint not null
);

create table events (
  position bigint not null default nextval('events_position_seq'),
  -- The appending transaction; readers order by (transaction_id, position) and
  -- only read transactions older than every one still running.
  transaction_id xid8 not null default pg_current_xact_id(),
  stream_id text not null,
  stream_revision bigint not null,
  event_id uuid not null,
  type text not null,
  schema_version int not null default 1,
  data jsonb not null,
  metadata jsonb not null default '{}'::jsonb,
  recorded_at timestamptz not null default now(),
  constraint events_pkey primary key (stream_id, stream_revision),
  constraint events_event_id_key unique (event_id)
);

alter sequence events_position_seq owned by events.position;

-- readAll without a type filter: one ordered range scan from the checkpoint.
create index events_transaction_id_position_idx on events (transaction_id, position);

-- readAll with a type filter: one ordered range scan per requested type, merged,
-- so a projection of rare types never scans the events it does not handle.
create index events_type_transaction_id_position_idx on events (type, transaction_id, position);
