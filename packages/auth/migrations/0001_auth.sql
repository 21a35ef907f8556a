-- Tenants, projects, environments and platform API keys (packages/auth README).
-- Configuration, not history: ordinary tables the command side may look up
-- (DESIGN.md "The flow"), never events.

create table tenants (
  id text primary key,
  name text not null check (length(name) between 1 and 200),
  -- Feature switches, e.g. {"callRecording": true}; absent means off.
  features jsonb not null default '{}'::jsonb check (jsonb_typeof(features) = 'object'),
  -- Per-tenant request rate (spec 000 §8); null means the deployment's default.
  rate_limit_per_second integer check (rate_limit_per_second > 0),
  created_at timestamptz not null default now()
);

create table projects (
  id text primary key,
  tenant_id text not null references tenants (id),
  slug text not null,
  name text not null check (length(name) between 1 and 200),
  -- Recording settings, reporting exposure (identity fields), payload storage.
  settings jsonb not null default '{}'::jsonb check (jsonb_typeof(settings) = 'object'),
  created_at timestamptz not null default now(),
  constraint projects_tenant_id_slug_key unique (tenant_id, slug),
  -- Lets api_keys prove that a key's tenant is its project's tenant.
  constraint projects_id_tenant_id_key unique (id, tenant_id)
);

create table project_environments (
  project_id text not null references projects (id) on delete cascade,
  name text not null check (name in ('dev', 'staging', 'production', 'working-copy')),
  created_at timestamptz not null default now(),
  primary key (project_id, name)
);

create table api_keys (
  id text primary key,
  tenant_id text not null,
  project_id text not null,
  name text not null check (length(name) between 1 and 200),
  -- The key's public lookup part; the secret itself is never stored.
  lookup_prefix text not null,
  -- SHA-256 of the whole key.
  key_hash bytea not null check (length(key_hash) = 32),
  scopes text[] not null check (cardinality(scopes) > 0),
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  constraint api_keys_lookup_prefix_key unique (lookup_prefix),
  constraint api_keys_project_fkey foreign key (project_id, tenant_id) references projects (id, tenant_id)
);

create index api_keys_project_id_idx on api_keys (project_id, created_at);
