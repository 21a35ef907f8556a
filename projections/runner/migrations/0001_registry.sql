-- The projection registry: which generation of each projection's tables is
-- live (the views point at it), and each generation's checkpoint. Written only
-- by @parley/projection-runner.
create table projection_registry (
  name text primary key,
  live_generation integer not null,
  -- version and DDL hash of the live generation's definition
  version integer not null,
  ddl_hash text not null,
  -- logical table names (= view names) the projection owns
  tables text[] not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table projection_generations (
  name text not null references projection_registry (name) on delete cascade,
  generation integer not null,
  version integer not null,
  ddl_hash text not null,
  tables text[] not null,
  status text not null check (status in ('building', 'live', 'retired')),
  -- checkpoint: the position of the last event applied (0/0: none yet)
  checkpoint_commit bigint not null default 0,
  checkpoint_prepare bigint not null default 0,
  events_processed bigint not null default 0,
  last_event_recorded_at timestamptz,
  -- set when a handler failed on an event; cleared by the next applied batch
  error text,
  error_event_id text,
  error_event_type text,
  failed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  live_at timestamptz,
  retired_at timestamptz,
  tables_dropped_at timestamptz,
  primary key (name, generation)
);

create unique index projection_generations_one_live on projection_generations (name) where status = 'live';
create unique index projection_generations_one_building on projection_generations (name) where status = 'building';
