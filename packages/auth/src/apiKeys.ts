import type { Pool } from '@parley/platform';
import { displayPrefix, generateApiKey } from './apiKey.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, projectNotFound, validationError } from './errors.js';
import { newApiKeyId } from './ids.js';
import type { ApiKeyRecord, ApiKeyStatus } from './types.js';
import { checkName, checkScopes } from './validation.js';

interface ApiKeyRow {
  id: string;
  tenant_id: string;
  project_id: string;
  name: string;
  lookup_prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

// Never key_hash: nothing that lists keys can leak even the hash.
const COLUMNS =
  'id, tenant_id, project_id, name, lookup_prefix, scopes, created_at, expires_at, revoked_at, last_used_at';

export function apiKeyStatus(
  key: { revokedAt: Date | null; expiresAt: Date | null },
  now: Date,
): ApiKeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

const toRecord = (r: ApiKeyRow, now: Date): ApiKeyRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  name: r.name,
  displayPrefix: displayPrefix(r.lookup_prefix),
  scopes: r.scopes,
  status: apiKeyStatus({ revokedAt: r.revoked_at, expiresAt: r.expires_at }, now),
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  lastUsedAt: r.last_used_at,
});

export interface CreateApiKeyInput {
  /** The project id (resolve slugs with findProject first). */
  projectId: string;
  scopes: readonly string[];
  /** Defaults to the scopes, comma-separated. */
  name?: string;
  expiresAt?: Date | null;
}

export interface CreatedApiKey {
  /** The plaintext key: returned this once, never stored, never retrievable again. */
  key: string;
  record: ApiKeyRecord;
}

export function createApiKeyQueries(pool: Pool, now: () => Date) {
  return {
    async createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey> {
      const scopes = checkScopes(input.scopes);
      const name = checkName('key name', input.name ?? scopes.join(','));
      const expiresAt = input.expiresAt ?? null;
      if (expiresAt !== null && !(expiresAt.getTime() > now().getTime())) {
        throw validationError('expiresAt must be in the future');
      }
      const { rows: projects } = await pool.query<{ tenant_id: string }>(
        'select tenant_id from projects where id = $1',
        [input.projectId],
      );
      const tenantId = projects[0]?.tenant_id;
      if (tenantId === undefined) throw projectNotFound(input.projectId);
      // A lookup-prefix collision (about 71 random bits) is near impossible; retry rather than fail.
      for (let attempt = 1; ; attempt++) {
        const generated = generateApiKey();
        try {
          const { rows } = await pool.query<ApiKeyRow>(
            `insert into api_keys (id, tenant_id, project_id, name, lookup_prefix, key_hash, scopes, expires_at)
             values ($1, $2, $3, $4, $5, $6, $7, $8) returning ${COLUMNS}`,
            [
              newApiKeyId(),
              tenantId,
              input.projectId,
              name,
              generated.lookupPrefix,
              generated.hash,
              scopes,
              expiresAt,
            ],
          );
          return { key: generated.key, record: toRecord(rows[0]!, now()) };
        } catch (err) {
          const { code, constraint } = pgErrorCode(err);
          if (attempt < 3 && code === PG_UNIQUE_VIOLATION && constraint === 'api_keys_lookup_prefix_key')
            continue;
          throw err;
        }
      }
    },

    async getApiKey(keyId: string): Promise<ApiKeyRecord | null> {
      const { rows } = await pool.query<ApiKeyRow>(`select ${COLUMNS} from api_keys where id = $1`, [keyId]);
      return rows[0] ? toRecord(rows[0], now()) : null;
    },

    /** The project's keys, oldest first, revoked and expired ones included (with their status). */
    async listApiKeys(projectId: string): Promise<ApiKeyRecord[]> {
      const { rows } = await pool.query<ApiKeyRow>(
        `select ${COLUMNS} from api_keys where project_id = $1 order by created_at, id`,
        [projectId],
      );
      const at = now();
      return rows.map((r) => toRecord(r, at));
    },

    /**
     * Revokes a key; revoking twice keeps the first revocation time. Null when
     * no such key.
     */
    async revokeApiKey(keyId: string): Promise<ApiKeyRecord | null> {
      const { rows } = await pool.query<ApiKeyRow>(
        `update api_keys set revoked_at = coalesce(revoked_at, $2) where id = $1 returning ${COLUMNS}`,
        [keyId, now()],
      );
      return rows[0] ? toRecord(rows[0], now()) : null;
    },
  };
}
