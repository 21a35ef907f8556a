-- Agents of a project (packages/runtime README). Configuration, not history: an ordinary table the
-- turn engine looks up; what an agent did is in the session streams, never here.

create table agents (
  id text primary key,
  project_id text not null references projects (id) on delete cascade,
  name text not null check (name ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  description text check (length(description) <= 1000),
  provider text not null check (provider in ('scripted', 'openai-compatible')),
  model text not null check (length(model) between 1 and 200),
  system_prompt text not null default '' check (length(system_prompt) <= 100000),
  -- Tool definitions offered to the model: [{name, description, parameters}].
  tools jsonb not null default '[]'::jsonb check (jsonb_typeof(tools) = 'array'),
  -- Guardrails applied by the turn engine: {blockedTerms, maxReplyChars, blockedReply}.
  guardrails jsonb not null default '{}'::jsonb check (jsonb_typeof(guardrails) = 'object'),
  -- Environment new sessions with this agent record when the caller names none; null: `dev`.
  environment text check (environment in ('dev', 'staging', 'production', 'working-copy')),
  deployment_id text check (length(deployment_id) between 1 and 256),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint agents_project_id_name_key unique (project_id, name)
);

create index agents_project_id_created_at_idx on agents (project_id, created_at, name);
