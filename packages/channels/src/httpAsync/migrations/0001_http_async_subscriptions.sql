-- Webhook subscriptions of the HTTP async channel (spec 001 §2.7, §4.9): where a project's agent
-- replies are delivered. Configuration, not history: the delivery log lives elsewhere.
-- The return-path secret (the generated HMAC secret, or the caller's bearer token) is AES-256-GCM
-- ciphertext under the channel keyring (src/crypto/keyring.ts), the subscription id as associated
-- data, with the id of the key that encrypted it.
-- Deleted subscriptions stay (deliveries refer to them) but are final: no API reactivates them, and
-- their secret is erased because nothing will be signed with it again.

create table http_async_subscriptions (
  id text primary key check (id ~ '^sub_[0-9A-Za-z]{16}$'),
  tenant_id text not null,
  project_id text not null,
  display_name text not null check (length(display_name) between 1 and 200),
  -- As accepted by the callback URL guard; checked again before every delivery (DNS can change).
  callback_url text not null check (length(callback_url) between 1 and 2048),
  events text[] not null check (
    cardinality(events) between 1 and 3
    and events <@ array['agent.response', 'agent.status', 'agent.media']::text[]
  ),
  status text not null default 'active' check (status in ('active', 'paused', 'deleted')),
  auth_mode text not null check (auth_mode in ('hmac', 'bearer')),
  secret_key_id text,
  secret_ciphertext bytea,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  constraint http_async_subscriptions_deleted_check check (
    (status = 'deleted') = (deleted_at is not null)
    and (status = 'deleted' or (secret_key_id is not null and secret_ciphertext is not null))
  ),
  constraint http_async_subscriptions_project_fkey foreign key (project_id, tenant_id)
    references projects (id, tenant_id) on delete cascade
);

create index http_async_subscriptions_project_idx on http_async_subscriptions (project_id, created_at, id)
  where status <> 'deleted';
create index http_async_subscriptions_key_id_idx on http_async_subscriptions (secret_key_id)
  where secret_key_id is not null;
