-- Telephony provider accounts (packages/telephony README) and the media fetcher's place in the log.
-- Configuration, not history: ordinary tables, never events.

create table telephony_accounts (
  -- The provider's account identifier (Twilio: AC…); it arrives in every callback.
  account_sid text primary key check (length(account_sid) between 1 and 128),
  tenant_id text not null,
  project_id text not null,
  -- Signs the provider's callbacks (HMAC-SHA1 key), so it is kept usable, not hashed. Never listed or logged.
  auth_token text not null check (length(auth_token) between 1 and 256),
  -- Basic-auth credentials for the recording server; null: the account SID and auth token.
  recording_username text check (length(recording_username) between 1 and 256),
  recording_password text check (length(recording_password) between 1 and 256),
  created_at timestamptz not null default now(),
  constraint telephony_accounts_project_fkey foreign key (project_id, tenant_id)
    references projects (id, tenant_id) on delete cascade,
  constraint telephony_accounts_recording_credentials check (
    (recording_username is null) = (recording_password is null)
  )
);

create index telephony_accounts_project_id_idx on telephony_accounts (project_id, created_at);

-- Log consumers of the worker that are not projections (the media fetcher's job enqueuer): the
-- position of the last event whose work was durably handed over.
create table log_consumer_checkpoints (
  name text primary key,
  position_commit numeric(20, 0) not null,
  position_prepare numeric(20, 0) not null,
  updated_at timestamptz not null default now()
);
