-- Rebuilds requested through the API (POST /api/v1/projections/{name}/rebuilds) and run by the
-- worker's `projection-rebuild` queue: one row per request, its state and progress. The rebuild
-- itself is rebuildProjection's (generations in projection_generations); this is its record.
create table projection_rebuilds (
  -- also the id of the request's first pg-boss job
  id uuid primary key,
  projection text not null,
  state text not null check (state in ('queued', 'running', 'completed', 'failed')),
  requested_at timestamptz not null default now(),
  -- who asked: { kind: 'api_key' | 'user', id } (a key id or a JWT subject, never a secret)
  requested_by_kind text not null,
  requested_by_id text not null,
  started_at timestamptz,
  finished_at timestamptz,
  -- the generation being built (known once it started), then the one that went live
  generation integer,
  events_processed bigint not null default 0,
  -- processed + still to replay, when counted (a lower bound when the count hit its cap)
  events_total bigint,
  events_per_second integer,
  error text,
  updated_at timestamptz not null default now()
);

-- At most one queued or running rebuild per projection: a second request is refused (409), also
-- when two arrive at once (the second insert waits for the first's commit, then conflicts).
create unique index projection_rebuilds_one_active on projection_rebuilds (projection)
  where state in ('queued', 'running');
create index projection_rebuilds_latest on projection_rebuilds (projection, requested_at desc);
