-- Inbound channel messages (spec 001 §4.1): one row per (connection, external message id). The
-- primary key is the deduplication: a webhook delivered twice, or twice at once, inserts one row
-- and enqueues one job. The worker records the turn's outcome here so a retried job never runs the
-- turn again.
create table channel_inbound_messages (
  connection_id text not null,
  external_message_id text not null,
  external_session_key text not null,
  job_id uuid not null,
  received_at timestamptz not null default now(),
  session_id text,
  reply_message_id text,
  processed_at timestamptz,
  primary key (connection_id, external_message_id)
);

-- Conversations: the runtime session an external conversation or thread key maps to.
create table channel_sessions (
  connection_id text not null,
  external_session_key text not null,
  session_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (connection_id, external_session_key)
);
