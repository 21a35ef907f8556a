-- Telephony auth tokens and recording passwords encrypted at rest (issue 17), like channel
-- connection credentials: AES-256-GCM under CHANNEL_CREDENTIALS_KEY, the key id beside the
-- ciphertext. SQL cannot encrypt with a key it never sees, so rows stored before this migration keep
-- their clear values until the first process that has the key starts (`parley migrate`, `start`,
-- `api`, `worker`: TelephonyAccountStore.sealSecrets, right after the migrations) or
-- `parley channels rotate-credentials` runs; each row is rewritten with its clear columns set to null.

alter table telephony_accounts
  add column secrets_key_id text,
  add column auth_token_ciphertext bytea,
  add column recording_password_ciphertext bytea,
  alter column auth_token drop not null;

alter table telephony_accounts drop constraint telephony_accounts_recording_credentials;

alter table telephony_accounts
  -- Exactly one form of the auth token: clear (a row not yet sealed) or encrypted.
  add constraint telephony_accounts_auth_token_one_form check (
    (auth_token is null) <> (auth_token_ciphertext is null)
  ),
  add constraint telephony_accounts_recording_password_one_form check (
    recording_password is null or recording_password_ciphertext is null
  ),
  add constraint telephony_accounts_secrets_key check (
    (secrets_key_id is null) = (auth_token_ciphertext is null)
    and (recording_password_ciphertext is null or secrets_key_id is not null)
  ),
  add constraint telephony_accounts_recording_credentials check (
    (recording_username is null) = (recording_password is null and recording_password_ciphertext is null)
  );
