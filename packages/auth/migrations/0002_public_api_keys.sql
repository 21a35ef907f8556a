-- Public widget keys (pk_…, spec 000 §5): project-scoped, origin-restricted, embedded in web pages.
-- Public by design, so stored in clear (a hash would protect nothing a page source does not show).

create table public_api_keys (
  id text primary key check (id ~ '^pkk_[0-9A-Za-z]{16}$'),
  tenant_id text not null,
  project_id text not null,
  name text not null check (length(name) between 1 and 200),
  key text not null unique check (key ~ '^pk_[0-9A-Za-z]{32}$'),
  -- Serialized origins (scheme://host[:port]); the Origin header must be one of them.
  allowed_origins text[] not null,
  permissions jsonb not null default '{"chat": true, "voice": false}',
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  foreign key (project_id, tenant_id) references projects (id, tenant_id) on delete cascade
);

create index public_api_keys_project_id_idx on public_api_keys (project_id, created_at);
-- CORS preflights carry no key: they ask whether any active key lists the origin.
create index public_api_keys_allowed_origins_idx on public_api_keys using gin (allowed_origins)
  where revoked_at is null;
