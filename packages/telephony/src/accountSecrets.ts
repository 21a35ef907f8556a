import { type CredentialKeyring, CredentialsKeyUnknownError, ParleyError } from '@parley/platform';

/**
 * The secret columns of a telephony_accounts row: clear (a row stored before secrets were encrypted,
 * not yet sealed) or ciphertexts under `secrets_key_id`.
 */
export interface SecretColumns {
  account_sid: string;
  auth_token: string | null;
  recording_password: string | null;
  secrets_key_id: string | null;
  auth_token_ciphertext: Buffer | null;
  recording_password_ciphertext: Buffer | null;
}

export const SECRET_COLUMNS =
  'auth_token, recording_password, secrets_key_id, auth_token_ciphertext, recording_password_ciphertext';

/** What the row is sealed as: one key id, two ciphertexts (the second only with a recording password). */
export interface SealedSecrets {
  keyId: string;
  authToken: Buffer;
  recordingPassword: Buffer | null;
}

/**
 * Associated data per account and field: a ciphertext moved to another account, or from the
 * password column to the token column, does not decrypt.
 */
const aad = (accountSid: string, field: 'authToken' | 'recordingPassword') =>
  `telephony_account:${accountSid}:${field}`;

export const credentialsKeyMissing = () =>
  new ParleyError(
    'CREDENTIALS_KEY_REQUIRED',
    503,
    'CHANNEL_CREDENTIALS_KEY is not set: telephony auth tokens are stored encrypted with it',
  );

export function sealSecrets(
  keyring: CredentialKeyring,
  accountSid: string,
  secrets: { authToken: string; recordingPassword: string | null },
): SealedSecrets {
  const token = keyring.encrypt(secrets.authToken, aad(accountSid, 'authToken'));
  const password =
    secrets.recordingPassword === null
      ? null
      : keyring.encrypt(secrets.recordingPassword, aad(accountSid, 'recordingPassword'));
  return { keyId: token.keyId, authToken: token.ciphertext, recordingPassword: password?.ciphertext ?? null };
}

/** The clear secrets of a row, whichever form it holds them in. */
export function openSecrets(
  keyring: CredentialKeyring | null,
  row: SecretColumns,
): { authToken: string; recordingPassword: string | null } {
  if (row.auth_token_ciphertext === null) {
    // Not sealed yet (stored before issue 17 and no process with the key has started since).
    return { authToken: row.auth_token ?? '', recordingPassword: row.recording_password };
  }
  const keyId = row.secrets_key_id ?? '';
  if (keyring === null) throw new CredentialsKeyUnknownError(keyId);
  return {
    authToken: keyring.decrypt(keyId, row.auth_token_ciphertext, aad(row.account_sid, 'authToken')),
    recordingPassword:
      row.recording_password_ciphertext === null
        ? null
        : keyring.decrypt(
            keyId,
            row.recording_password_ciphertext,
            aad(row.account_sid, 'recordingPassword'),
          ),
  };
}
