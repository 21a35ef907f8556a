-- Agents that act (docs/agents.md): system tools, handoff targets, context access, the iteration
-- limit, the Anthropic provider, and write-only secrets (AES-256-GCM with the credentials keyring,
-- the agent id as associated data; only their names are readable).

alter table agents drop constraint agents_provider_check;
alter table agents add constraint agents_provider_check
  check (provider in ('scripted', 'openai-compatible', 'anthropic'));

alter table agents
  add column system_tools jsonb not null default '{}'::jsonb check (jsonb_typeof(system_tools) = 'object'),
  add column handoffs jsonb not null default '{}'::jsonb check (jsonb_typeof(handoffs) = 'object'),
  add column context_access jsonb not null default '{}'::jsonb check (jsonb_typeof(context_access) = 'object'),
  add column max_iterations integer check (max_iterations between 1 and 25),
  add column secret_names text[] not null default '{}',
  add column secrets_key_id text,
  add column secrets_ciphertext bytea,
  add constraint agents_secrets_check check ((secrets_key_id is null) = (secrets_ciphertext is null));

-- Suspended tool calls (docs/agents.md "Suspended tools"): command-side state of the callback
-- route. The turn's context is in the session's ToolCallSuspended event; this row holds what the
-- route checks before anything happens: the signing secret (encrypted), the deadline, the status
-- that lets a suspension resume once, and where the resumed reply goes (`origin`).
create table tool_suspensions (
  suspension_id text primary key,
  session_id text not null,
  project_id text not null references projects (id) on delete cascade,
  tenant_id text not null,
  status text not null default 'pending' check (status in ('pending', 'resumed', 'timed_out')),
  secret_key_id text not null,
  secret_ciphertext bytea not null,
  origin jsonb check (origin is null or jsonb_typeof(origin) = 'object'),
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  resolved_at timestamptz
);

create index tool_suspensions_pending_expiry_idx on tool_suspensions (expires_at) where status = 'pending';
