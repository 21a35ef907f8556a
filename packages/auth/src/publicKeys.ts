import type { Pool } from '@parley/platform';
import { randomBase62 } from './base62.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, projectNotFound, validationError } from './errors.js';
import { checkAllowedOrigins } from './publicOrigins.js';
import { checkName } from './validation.js';

export const PUBLIC_KEY_PREFIX = 'pk_';
/** 32 base62 characters (about 190 bits): not a secret, but not guessable either. */
const PUBLIC_KEY_RANDOM_LENGTH = 32;
const PUBLIC_KEY = /^pk_[0-9A-Za-z]{32}$/;

export const newPublicApiKeyId = (): string => `pkk_${randomBase62(16)}`;

/** What a public widget key lets a browser do (spec 000 §5 "limited permissions"). */
export interface PublicKeyPermissions {
  chat: boolean;
  voice: boolean;
}

export interface PublicApiKeyRecord {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  /** The `pk_…` key itself: public (it is embedded in web pages), so listed in clear. */
  key: string;
  allowedOrigins: string[];
  permissions: PublicKeyPermissions;
  status: 'active' | 'revoked';
  createdAt: Date;
  revokedAt: Date | null;
}

/** An active public key, as the SDK routes need it. */
export interface ResolvedPublicKey {
  id: string;
  tenantId: string;
  projectId: string;
  allowedOrigins: string[];
  permissions: PublicKeyPermissions;
}

export interface CreatePublicApiKeyInput {
  /** The project id (resolve slugs with findProject first). */
  projectId: string;
  /** Each `scheme://host[:port]`: https, or http for localhost only. */
  allowedOrigins: readonly string[];
  /** Default `{ chat: true, voice: false }`; missing fields take these defaults. */
  permissions?: Partial<PublicKeyPermissions>;
  /** Default `widget`. */
  name?: string;
}

interface PublicKeyRow {
  id: string;
  tenant_id: string;
  project_id: string;
  name: string;
  key: string;
  allowed_origins: string[];
  permissions: Partial<PublicKeyPermissions>;
  created_at: Date;
  revoked_at: Date | null;
}

const COLUMNS = 'id, tenant_id, project_id, name, key, allowed_origins, permissions, created_at, revoked_at';

const permissionsOf = (p: Partial<PublicKeyPermissions>): PublicKeyPermissions => ({
  chat: p.chat === true,
  voice: p.voice === true,
});

const toRecord = (r: PublicKeyRow): PublicApiKeyRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  name: r.name,
  key: r.key,
  allowedOrigins: r.allowed_origins,
  permissions: permissionsOf(r.permissions),
  status: r.revoked_at === null ? 'active' : 'revoked',
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

function checkPermissions(input: Partial<PublicKeyPermissions> | undefined): PublicKeyPermissions {
  const given = input ?? {};
  for (const [name, value] of Object.entries(given)) {
    if (name !== 'chat' && name !== 'voice') throw validationError(`unknown public key permission ${name}`);
    if (value !== undefined && typeof value !== 'boolean')
      throw validationError(`permission ${name} must be true or false`);
  }
  return { chat: given.chat ?? true, voice: given.voice ?? false };
}

/** Public widget keys (`pk_…`): the `public_api_keys` table of migration 0002. */
export function createPublicKeyQueries(pool: Pool, now: () => Date) {
  return {
    async createPublicApiKey(input: CreatePublicApiKeyInput): Promise<PublicApiKeyRecord> {
      const allowedOrigins = checkAllowedOrigins(input.allowedOrigins);
      const permissions = checkPermissions(input.permissions);
      const name = checkName('key name', input.name ?? 'widget');
      const { rows: projects } = await pool.query<{ tenant_id: string }>(
        'select tenant_id from projects where id = $1',
        [input.projectId],
      );
      const tenantId = projects[0]?.tenant_id;
      if (tenantId === undefined) throw projectNotFound(input.projectId);
      for (let attempt = 1; ; attempt++) {
        try {
          const { rows } = await pool.query<PublicKeyRow>(
            `insert into public_api_keys (id, tenant_id, project_id, name, key, allowed_origins, permissions)
             values ($1, $2, $3, $4, $5, $6, $7) returning ${COLUMNS}`,
            [
              newPublicApiKeyId(),
              tenantId,
              input.projectId,
              name,
              PUBLIC_KEY_PREFIX + randomBase62(PUBLIC_KEY_RANDOM_LENGTH),
              allowedOrigins,
              permissions,
            ],
          );
          return toRecord(rows[0]!);
        } catch (err) {
          // A collision of 190 random bits does not happen; retry rather than reason about it.
          if (attempt < 3 && pgErrorCode(err).code === PG_UNIQUE_VIOLATION) continue;
          throw err;
        }
      }
    },

    async getPublicApiKey(id: string): Promise<PublicApiKeyRecord | null> {
      const { rows } = await pool.query<PublicKeyRow>(
        `select ${COLUMNS} from public_api_keys where id = $1`,
        [id],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    /** The project's public keys, oldest first, revoked ones included. */
    async listPublicApiKeys(projectId: string): Promise<PublicApiKeyRecord[]> {
      const { rows } = await pool.query<PublicKeyRow>(
        `select ${COLUMNS} from public_api_keys where project_id = $1 order by created_at, id`,
        [projectId],
      );
      return rows.map(toRecord);
    },

    /** Revokes a public key (revoking twice keeps the first time); null when no such key. */
    async revokePublicApiKey(id: string): Promise<PublicApiKeyRecord | null> {
      const { rows } = await pool.query<PublicKeyRow>(
        `update public_api_keys set revoked_at = coalesce(revoked_at, $2) where id = $1 returning ${COLUMNS}`,
        [id, now()],
      );
      return rows[0] ? toRecord(rows[0]) : null;
    },

    /** The active key behind a `pk_…` string; null when malformed, unknown or revoked (never throws for input). */
    async resolvePublicKey(key: string): Promise<ResolvedPublicKey | null> {
      if (typeof key !== 'string' || !PUBLIC_KEY.test(key)) return null;
      const { rows } = await pool.query<PublicKeyRow>(
        `select ${COLUMNS} from public_api_keys where key = $1 and revoked_at is null`,
        [key],
      );
      const row = rows[0];
      if (row === undefined) return null;
      return {
        id: row.id,
        tenantId: row.tenant_id,
        projectId: row.project_id,
        allowedOrigins: row.allowed_origins,
        permissions: permissionsOf(row.permissions),
      };
    },

    /**
     * Whether an active public key lists this origin (of this project when given). For CORS
     * preflights, which carry no key: the request that follows is checked against its own key.
     */
    async isPublicOriginListed(origin: string, projectId?: string): Promise<boolean> {
      const { rows } = await pool.query(
        `select 1 from public_api_keys
          where revoked_at is null and allowed_origins @> array[$1::text]
            and ($2::text is null or project_id = $2) limit 1`,
        [origin, projectId ?? null],
      );
      return rows.length > 0;
    },
  };
}
