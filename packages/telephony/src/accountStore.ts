import { ParleyError, type Pool } from '@parley/platform';

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
}

const ACCOUNT_SID = /^[A-Za-z0-9_-]{1,128}$/;

const invalid = (message: string) => new ParleyError('VALIDATION_ERROR', 400, message);

interface Row {
  account_sid: string;
  tenant_id: string;
  project_id: string;
  auth_token: string;
  recording_username: string | null;
  recording_password: string | null;
  created_at: Date;
}

const toAccount = (r: Row): TelephonyAccount => ({
  accountSid: r.account_sid,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  hasRecordingCredentials: r.recording_username !== null,
  createdAt: r.created_at,
});

const toSecrets = (r: Row): TelephonyAccountSecrets => ({
  accountSid: r.account_sid,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  authToken: r.auth_token,
  recordingCredentials:
    r.recording_username !== null && r.recording_password !== null
      ? { username: r.recording_username, password: r.recording_password }
      : { username: r.account_sid, password: r.auth_token },
});

const COLUMNS =
  'account_sid, tenant_id, project_id, auth_token, recording_username, recording_password, created_at';

/** Telephony accounts in PostgreSQL (table telephony_accounts). */
export function createTelephonyAccountStore(pool: Pool): TelephonyAccountStore {
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
      try {
        const { rows } = await pool.query<Row>(
          `insert into telephony_accounts
             (account_sid, tenant_id, project_id, auth_token, recording_username, recording_password)
           select $1, p.tenant_id, p.id, $3, $4, $5 from projects p where p.id = $2
           returning ${COLUMNS}`,
          [
            input.accountSid,
            input.projectId,
            input.authToken,
            input.recordingUsername ?? null,
            input.recordingPassword ?? null,
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
      return rows[0] ? toSecrets(rows[0]) : null;
    },
    async secretsOfProject(projectId) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from telephony_accounts where project_id = $1 order by created_at, account_sid`,
        [projectId],
      );
      return rows.map(toSecrets);
    },
  };
}
