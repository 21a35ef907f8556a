-- A2A tasks (spec 001 §2.2: `a2a` is API ingress with async queue delivery): one task per inbound
-- A2A message of a connection. The task id is derived from (connection, messageId), so a message
-- sent twice is one task; the worker's a2a adapter writes the agent's reply here instead of calling
-- a platform, and tasks/get reads it.
create table a2a_tasks (
  id uuid primary key,
  connection_id text not null,
  -- The A2A messageId of the user message: the inbound pipeline's external message id.
  message_id text not null,
  context_id text not null,
  state text not null check (state in ('submitted', 'working', 'completed', 'failed', 'canceled')),
  -- The user message as received (kind, role, parts, metadata).
  request_message jsonb not null,
  -- The agent's reply message, once completed.
  reply_message jsonb,
  artifacts jsonb not null default '[]'::jsonb,
  -- configuration.pushNotificationConfig (url, token, authentication): the caller's webhook
  -- secret, cleared once the notification is delivered.
  push_config jsonb,
  pushed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (connection_id, message_id)
);
