-- The conversation lock as a lease (packages/channels README "Conversation lock"): a row per held
-- lock, taken by an upsert that only succeeds over an expired lease, renewed while its holder works,
-- deleted on release. Unlike a session-level advisory lock it holds no database connection while
-- the agent's model or tools run; a holder that dies lets the lock go when its lease expires.
create table channel_conversation_locks (
  lock_key text primary key,
  holder text not null,
  expires_at timestamptz not null
);
