import { type CredentialKeyring, ParleyError, type Pool, withTransaction } from '@parley/platform';
import {
  credentialsKeyMissing,
  openSecrets,
  SECRET_COLUMNS,
  type SecretColumns,
  sealSecrets,
} from './accountSecrets.js';

/** A telephony provider account as listed: never its auth token or recording password. */
export interface TelephonyAccount {
  accountSid: string;
  tenantId: string;
  projectId: string;
  /** Whether separate recording-server credentials are set (else the SID and auth token are used). */
  hasRecordingCredentials: boolean;
  createdAt: Date;
}

/** What verifying a callback and fetching media need: secrets, for the process's use only. */
export interface TelephonyAccountSecrets {
  accountSid: string;
  tenantId: string;
  projectId: string;
  authToken: string;
  /** Basic-auth credentials for the recording server. */
  recordingCredentials: { username: string; password: string };
}

export interface AddTelephonyAccountInput {
  accountSid: string;
  projectId: string;
  authToken: string;
  recordingUsername?: string;
  recordingPassword?: string;
}

export interface TelephonyAccountStore {
  add(input: AddTelephonyAccountInput): Promise<TelephonyAccount>;
  list(filter?: { projectId?: string }): Promise<TelephonyAccount[]>;
  /** True when an account was removed. */
  remove(accountSid: string): Promise<boolean>;
  /** The account with its secrets, or null. */
  secrets(accountSid: string): Promise<TelephonyAccountSecrets | null>;
  /** The accounts of a project with their secrets, oldest first. */
  secretsOfProject(projectId: string): Promise<TelephonyAccountSecrets[]>;
  /**
   * Encrypts under the current key every row that is still clear (stored before secrets were
   * encrypted) and, unless `onlyClear`, every row under an older key; batches of `batchSize`
   * (default 100) rows locked `for update skip locked`, safe while the API runs. `onlyClear`: the
   * migration's data step at every start; all: `parley channels rotate-credentials`. Needs the keyring.
   */
  sealSecrets(options?: { batchSize?: number; onlyClear?: boolean }): Promise<{ sealed: number }>;
  /** Accounts per key id of their secrets; `clear` for rows not sealed yet. */
  countByKeyId(): Promise<Record<string, number>>;
}

const ACCOUNT_SID = /^[A-Za-z0-9_-]{1,128}$/;

const invalid = (message: string) => new ParleyError('VALIDATION_ERROR', 400, message);

interface Row extends SecretColumns {
  tenant_id: string;
  project_id: string;
  recording_username: string | null;
  created_at: Date;
}

const toAccount = (r: Row): TelephonyAccount => ({
  accountSid: r.account_sid,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  hasRecordingCredentials: r.recording_username !== null,
  createdAt: r.created_at,
});

function toSecrets(keyring: CredentialKeyring | null, r: Row): TelephonyAccountSecrets {
  const { authToken, recordingPassword } = openSecrets(keyring, r);
  return {
    accountSid: r.account_sid,
    tenantId: r.tenant_id,
    projectId: r.project_id,
    authToken,
    recordingCredentials:
      r.recording_username !== null && recordingPassword !== null
        ? { username: r.recording_username, password: recordingPassword }
        : { username: r.account_sid, password: authToken },
  };
}

const COLUMNS = `account_sid, tenant_id, project_id, recording_username, created_at, ${SECRET_COLUMNS}`;

/**
 * Telephony accounts in PostgreSQL (table telephony_accounts). The auth token and recording
 * password are stored encrypted with the channel credentials keyring (CHANNEL_CREDENTIALS_KEY,
 * docs/channels.md "Credentials and key rotation"), the account SID authenticated with them; null
 * keyring: accounts cannot be added (503 CREDENTIALS_KEY_REQUIRED) and only rows not sealed yet read.
 */
export function createTelephonyAccountStore(
  pool: Pool,
  keyring: CredentialKeyring | null,
): TelephonyAccountStore {
  return {
    async add(input) {
      if (!ACCOUNT_SID.test(input.accountSid)) {
        throw invalid('the account SID must be 1-128 letters, digits, "_" or "-"');
      }
      if (input.authToken.length < 1 || input.authToken.length > 256) {
        throw invalid('the auth token must be 1-256 characters');
      }
      if ((input.recordingUsername === undefined) !== (input.recordingPassword === undefined)) {
        throw invalid('give both a recording username and a recording password, or neither');
      }
      for (const value of [input.recordingUsername, input.recordingPassword]) {
        if (value !== undefined && (value.length < 1 || value.length > 256)) {
          throw invalid('recording credentials must be 1-256 characters');
        }
      }
      if (keyring === null) throw credentialsKeyMissing();
      const sealed = sealSecrets(keyring, input.accountSid, {
        authToken: input.authToken,
        recordingPassword: input.recordingPassword ?? null,
      });
      try {
        const { rows } = await pool.query<Row>(
          `insert into telephony_accounts (account_sid, tenant_id, project_id, recording_username,
             secrets_key_id, auth_token_ciphertext, recording_password_ciphertext)
           select $1, p.tenant_id, p.id, $3, $4, $5, $6 from projects p where p.id = $2
           returning ${COLUMNS}`,
          [
            input.accountSid,
            input.projectId,
            input.recordingUsername ?? null,
            sealed.keyId,
            sealed.authToken,
            sealed.recordingPassword,
          ],
        );
        const row = rows[0];
        if (!row) throw new ParleyError('PROJECT_NOT_FOUND', 404, `no project ${input.projectId}`);
        return toAccount(row);
      } catch (err) {
        if ((err as { code?: unknown }).code === '23505') {
          throw new ParleyError(
            'TELEPHONY_ACCOUNT_EXISTS',
            409,
            `telephony account ${input.accountSid} is already registered; remove it first`,
          );
        }
        throw err;
      }
    },
    async list(filter = {}) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from telephony_accounts
         where ($1::text is null or project_id = $1) order by created_at, account_sid`,
        [filter.projectId ?? null],
      );
      return rows.map(toAccount);
    },
    async remove(accountSid) {
      const { rowCount } = await pool.query('delete from telephony_accounts where account_sid = $1', [
        accountSid,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async secrets(accountSid) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from telephony_accounts where account_sid = $1`,
        [accountSid],
      );
      return rows[0] ? toSecrets(keyring, rows[0]) : null;
    },
    async secretsOfProject(projectId) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from telephony_accounts where project_id = $1 order by created_at, account_sid`,
        [projectId],
      );
      return rows.map((row) => toSecrets(keyring, row));
    },
    async sealSecrets(options = {}) {
      if (keyring === null) throw credentialsKeyMissing();
      const batchSize = options.batchSize ?? 100;
      let sealed = 0;
      for (;;) {
        const done = await withTransaction(pool, async (client) => {
          const { rows } = await client.query<SecretColumns>(
            `select account_sid, ${SECRET_COLUMNS} from telephony_accounts
             where secrets_key_id is null or (not $3 and secrets_key_id <> $1)
             order by account_sid limit $2 for update skip locked`,
            [keyring.currentKeyId, batchSize, options.onlyClear === true],
          );
          for (const row of rows) {
            const next = sealSecrets(keyring, row.account_sid, openSecrets(keyring, row));
            await client.query(
              `update telephony_accounts set auth_token = null, recording_password = null,
                 secrets_key_id = $2, auth_token_ciphertext = $3, recording_password_ciphertext = $4
               where account_sid = $1`,
              [row.account_sid, next.keyId, next.authToken, next.recordingPassword],
            );
          }
          sealed += rows.length;
          return rows.length < batchSize;
        });
        if (done) return { sealed };
      }
    },
    async countByKeyId() {
      const { rows } = await pool.query<{ key_id: string; n: number }>(
        `select coalesce(secrets_key_id, 'clear') as key_id, count(*)::int as n
         from telephony_accounts group by 1 order by 1`,
      );
      return Object.fromEntries(rows.map((r) => [r.key_id, r.n]));
    },
  };
}
