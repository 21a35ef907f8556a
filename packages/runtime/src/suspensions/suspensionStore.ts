import { randomBytes } from 'node:crypto';
import type { Pool } from '@parley/platform';
import type { SecretsCipher } from '../agents/secretsCipher.js';

export type SuspensionStatus = 'pending' | 'resumed' | 'timed_out';

export interface SuspensionRecord {
  suspensionId: string;
  sessionId: string;
  projectId: string;
  tenantId: string;
  status: SuspensionStatus;
  origin: Record<string, unknown> | null;
  expiresAt: Date;
}

export interface NewSuspension {
  suspensionId: string;
  sessionId: string;
  projectId: string;
  tenantId: string;
  secret: string;
  origin: Record<string, unknown> | null;
  expiresAt: Date;
}

/** Why a claim did not take the suspension (it changed nothing). */
export type ClaimRefusal = 'unknown' | 'expired' | 'already_resumed' | 'timed_out';

export interface SuspensionStore {
  create(suspension: NewSuspension): Promise<void>;
  get(suspensionId: string): Promise<SuspensionRecord | null>;
  /** The suspension's signing secret (decrypted); null when there is no such suspension. */
  secret(suspensionId: string): Promise<string | null>;
  /**
   * Takes a pending suspension once: `resumed` (a callback, before the deadline) or `timed_out`
   * (the sweep, after it). `run` (e.g. queueing the resume job) runs in the same transaction.
   */
  claim(
    suspensionId: string,
    to: 'resumed' | 'timed_out',
    run?: (client: import('@parley/platform').PoolClient) => Promise<void>,
  ): Promise<{ ok: true; record: SuspensionRecord } | { ok: false; reason: ClaimRefusal }>;
  /** Pending suspensions past their deadline (the timeout sweep's work), oldest first. */
  expired(limit: number): Promise<string[]>;
}

/** `susp_` and 24 random bytes base64url: unguessable, as it is a path segment of a public route. */
export const newSuspensionId = (): string => `susp_${randomBytes(24).toString('base64url')}`;
/** The per-suspension HMAC-SHA256 key, given to the external system with the call. */
export const newSuspensionSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

interface Row {
  suspension_id: string;
  session_id: string;
  project_id: string;
  tenant_id: string;
  status: SuspensionStatus;
  origin: Record<string, unknown> | null;
  expires_at: Date;
}

const toRecord = (r: Row): SuspensionRecord => ({
  suspensionId: r.suspension_id,
  sessionId: r.session_id,
  projectId: r.project_id,
  tenantId: r.tenant_id,
  status: r.status,
  origin: r.origin,
  expiresAt: r.expires_at,
});

const COLUMNS = 'suspension_id, session_id, project_id, tenant_id, status, origin, expires_at';

/** Suspended tool calls (table tool_suspensions): secrets encrypted with the credentials keyring. */
export function createSuspensionStore(pool: Pool, cipher: SecretsCipher): SuspensionStore {
  const get = async (suspensionId: string) => {
    const { rows } = await pool.query<Row>(
      `select ${COLUMNS} from tool_suspensions where suspension_id = $1`,
      [suspensionId],
    );
    return rows[0] === undefined ? null : toRecord(rows[0]);
  };
  return {
    async create(s) {
      const { keyId, ciphertext } = cipher.encrypt(s.secret, s.suspensionId);
      await pool.query(
        `insert into tool_suspensions (suspension_id, session_id, project_id, tenant_id, secret_key_id,
           secret_ciphertext, origin, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)`,
        [
          s.suspensionId,
          s.sessionId,
          s.projectId,
          s.tenantId,
          keyId,
          ciphertext,
          s.origin === null ? null : JSON.stringify(s.origin),
          s.expiresAt,
        ],
      );
    },
    get,
    async secret(suspensionId) {
      const { rows } = await pool.query<{ secret_key_id: string; secret_ciphertext: Buffer }>(
        'select secret_key_id, secret_ciphertext from tool_suspensions where suspension_id = $1',
        [suspensionId],
      );
      const row = rows[0];
      return row === undefined
        ? null
        : cipher.decrypt(row.secret_key_id, row.secret_ciphertext, suspensionId);
    },
    async claim(suspensionId, to, run) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        // A callback takes it only before its deadline, the sweep only after: never both.
        const deadline = to === 'resumed' ? 'expires_at > now()' : 'expires_at <= now()';
        const { rows } = await client.query<Row>(
          `update tool_suspensions set status = $2, resolved_at = now()
           where suspension_id = $1 and status = 'pending' and ${deadline}
           returning ${COLUMNS}`,
          [suspensionId, to],
        );
        if (rows[0] === undefined) {
          await client.query('rollback');
          const current = await get(suspensionId);
          if (current === null) return { ok: false, reason: 'unknown' };
          if (current.status === 'resumed') return { ok: false, reason: 'already_resumed' };
          if (current.status === 'timed_out') return { ok: false, reason: 'timed_out' };
          return { ok: false, reason: 'expired' };
        }
        await run?.(client);
        await client.query('commit');
        return { ok: true, record: toRecord(rows[0]) };
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async expired(limit) {
      const { rows } = await pool.query<{ suspension_id: string }>(
        `select suspension_id from tool_suspensions where status = 'pending' and expires_at <= now()
         order by expires_at limit $1`,
        [limit],
      );
      return rows.map((r) => r.suspension_id);
    },
  };
}
