-- Channel connections (spec 001 §2.3, §4.2; packages/channels README). Configuration, not history.
-- Credentials are AES-256-GCM ciphertext (src/crypto/keyring.ts) with the id of the key that
-- encrypted them; the verify token (Meta-style challenges) is also kept as a SHA-256 hash for the
-- hashed lookup of GET challenges.

create table channel_connections (
  id text primary key,
  tenant_id text not null,
  project_id text not null,
  channel_type text not null check (channel_type ~ '^[a-z][a-z0-9_]{0,63}$'),
  -- Routing key of inbound messages; unique per channel type (webhooks name no tenant).
  external_identifier text not null check (length(external_identifier) between 1 and 256),
  name text check (length(name) between 1 and 200),
  -- Agent binding; null: the project's default agent.
  agent_name text check (length(agent_name) between 1 and 64),
  -- Deployment; null: the latest.
  deployment_id text check (length(deployment_id) between 1 and 256),
  active boolean not null default true,
  -- Non-secret settings (apiBaseUrl, email addresses...).
  settings jsonb not null default '{}'::jsonb check (jsonb_typeof(settings) = 'object'),
  credentials_key_id text not null,
  credentials_ciphertext bytea not null,
  -- Names of the stored credentials (what the API shows instead of values), sorted.
  credential_names text[] not null default '{}',
  verify_token_sha256 bytea check (octet_length(verify_token_sha256) = 32),
  -- Send failures since the last success; errored_at is set once they reach the threshold.
  consecutive_failures integer not null default 0 check (consecutive_failures >= 0),
  last_error text check (length(last_error) <= 1000),
  last_error_at timestamptz,
  errored_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint channel_connections_project_fkey foreign key (project_id, tenant_id)
    references projects (id, tenant_id) on delete cascade,
  constraint channel_connections_type_identifier_key unique (channel_type, external_identifier)
);

create index channel_connections_project_idx on channel_connections (project_id, created_at, id);
create index channel_connections_verify_token_idx on channel_connections (channel_type, verify_token_sha256)
  where verify_token_sha256 is not null;
create index channel_connections_key_id_idx on channel_connections (credentials_key_id);
