-- The NATS relay's place in the log: the position of the last event JetStream acknowledged (in log order).
create table downstream_checkpoints (
  name text primary key,
  commit numeric(20, 0) not null,
  prepare numeric(20, 0) not null,
  updated_at timestamptz not null default now()
);
