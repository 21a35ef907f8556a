-- Conversations of the HTTP async channel (spec 001 §4.9): the canonical, namespaced session_key
-- the service issues for a caller's first key. A caller key is used once: it starts the
-- conversation, and every later message sends the canonical key exactly. The runtime session a
-- conversation maps to lives in channel_sessions (connection_id = the subscription id,
-- external_session_key = the canonical key), as for every channel; each accepted message has its
-- channel_inbound_messages row (external_message_id = the message id) with the turn's outcome.
create table http_async_conversations (
  canonical_key text primary key,
  subscription_id text not null references http_async_subscriptions (id) on delete cascade,
  project_id text not null,
  caller_key text not null check (length(caller_key) between 1 and 256),
  created_at timestamptz not null default now(),
  unique (subscription_id, caller_key)
);

-- The earlier route (http_async/send) continues a conversation by its runtime sessionId.
create index channel_sessions_by_session on channel_sessions (connection_id, session_id);
