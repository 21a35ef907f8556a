-- SDK channels (spec 001 §2.4, §4.6): how a project's agents are reached from its web pages and apps
-- (a web widget, a mobile app, a voice or API front end). Each is bound to one public widget key
-- (`public_api_keys`, auth migration 0002), whose allowed origins guard the SDK requests. `config`
-- is the widget configuration of §2.5 (mode, position, theme, welcome message...), as validated by
-- src/sdk/sdkChannelSchema.ts; the widget config route merges it over the defaults.
create table sdk_channels (
  id text primary key check (id ~ '^sdkc_[0-9A-Za-z]{16}$'),
  tenant_id text not null,
  project_id text not null,
  name text not null check (length(name) between 1 and 200),
  channel_type text not null check (channel_type in ('web', 'mobile_ios', 'mobile_android', 'voice', 'api')),
  deployment_id text check (length(deployment_id) between 1 and 256),
  public_api_key_id text not null references public_api_keys (id),
  config jsonb not null default '{}' check (jsonb_typeof(config) = 'object'),
  is_active boolean not null default true,
  environment text not null default 'production' check (environment in ('dev', 'staging', 'production')),
  follow_environment boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint sdk_channels_project_fkey foreign key (project_id, tenant_id)
    references projects (id, tenant_id) on delete cascade
);

create index sdk_channels_project_idx on sdk_channels (project_id, created_at, id);
-- The widget config route looks up the project's active channels bound to one key.
create index sdk_channels_key_idx on sdk_channels (public_api_key_id);
