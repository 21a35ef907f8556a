import { randomBytes } from 'node:crypto';
import { type Pool, type PoolClient, withTransaction } from '@parley/platform';
import { type CredentialKeyring, hashVerifyToken } from '../crypto/keyring.js';
import { type ChannelManifestEntry, manifestEntry, webhookPathOf } from '../manifest/manifest.js';
import { type ProviderVariant, providerVariant, providerVariants } from '../manifest/providers.js';
import type { ConnectionStatus, ResolvedConnection, VerifyTokenLookup } from '../types.js';
import { type ApiBaseUrlGuard, checkApiBaseUrl } from './apiBaseUrl.js';
import { checkCredentialNames, checkSettings, normalizeIdentifier } from './channelRules.js';
import {
  ChannelNotConnectableError,
  ConnectionExistsError,
  ConnectionNotFoundError,
  InvalidCredentialsError,
  ProjectNotFoundError,
  UnknownChannelTypeError,
  UnknownProviderError,
} from './errors.js';
import {
  type ConnectionInput,
  type ConnectionPatch,
  connectionInputSchema,
  connectionPatchSchema,
} from './schema.js';

/** Consecutive send failures after which a connection's status is `error`. */
export const CONNECTION_ERROR_THRESHOLD = 3;

/** The credential holding a Meta-style verify token; stored hashed as well for challenges. */
export const VERIFY_TOKEN_CREDENTIAL = 'verifyToken';

/** A connection as the API shows it: credential names, never values. */
export interface ChannelConnection {
  id: string;
  tenantId: string;
  projectId: string;
  channelType: string;
  /** The provider variant (`twilio`, `vonage` for sms); null for channel types without variants. */
  provider: string | null;
  externalIdentifier: string;
  name: string | null;
  agentName: string | null;
  deploymentId: string | null;
  active: boolean;
  /** `inactive` when toggled off, else `error` after repeated send failures, else `active`. */
  status: ConnectionStatus;
  /** Names of the stored credentials, sorted. */
  credentialNames: string[];
  settings: Record<string, unknown>;
  /** Inbound path for the platform's webhook setting; null for channels without HTTP ingress. */
  webhookPath: string | null;
  consecutiveFailures: number;
  lastError: { message: string; at: Date } | null;
  erroredAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConnectionStore {
  /** ProjectNotFoundError, UnknownChannelTypeError, ChannelNotConnectableError, InvalidCredentialsError, ConnectionExistsError. */
  create(projectId: string, input: ConnectionInput): Promise<ChannelConnection>;
  /** Oldest first; `total` counts the project's connections. */
  list(
    projectId: string,
    page?: { limit: number; offset: number },
  ): Promise<{ connections: ChannelConnection[]; total: number }>;
  get(projectId: string, id: string): Promise<ChannelConnection | null>;
  /** ConnectionNotFoundError, InvalidCredentialsError, ConnectionExistsError. */
  update(projectId: string, id: string, patch: ConnectionPatch): Promise<ChannelConnection>;
  /** False when there was no such connection. */
  delete(projectId: string, id: string): Promise<boolean>;
  /** Inbound routing: the connection (active or not) of the channel type with the identifier. */
  resolve(channelType: string, externalIdentifier: string): Promise<ResolvedConnection | null>;
  resolveById(id: string): Promise<ResolvedConnection | null>;
  /** GET challenges: the active connection whose verify token hashes to the token's SHA-256. */
  findByVerifyToken: VerifyTokenLookup;
  /** A send failed: counts it; the status turns `error` at CONNECTION_ERROR_THRESHOLD in a row. */
  recordSendFailure(
    id: string,
    error: string,
  ): Promise<{ status: ConnectionStatus; consecutiveFailures: number } | null>;
  /** A send succeeded: clears the failure count and the `error` status. */
  recordSendSuccess(id: string): Promise<void>;
  /** Re-encrypts, in batches, every connection whose credentials use another key than the current one. */
  rotateCredentials(options?: { batchSize?: number }): Promise<{ reencrypted: number }>;
}

interface Row {
  id: string;
  tenant_id: string;
  project_id: string;
  channel_type: string;
  provider: string | null;
  external_identifier: string;
  name: string | null;
  agent_name: string | null;
  deployment_id: string | null;
  active: boolean;
  settings: Record<string, unknown>;
  credentials_key_id: string;
  credentials_ciphertext: Buffer;
  credential_names: string[];
  consecutive_failures: number;
  last_error: string | null;
  last_error_at: Date | null;
  errored_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, tenant_id, project_id, channel_type, provider, external_identifier, name, agent_name, deployment_id,
  active, settings, credentials_key_id, credentials_ciphertext, credential_names, consecutive_failures,
  last_error, last_error_at, errored_at, created_at, updated_at`;

const statusOf = (r: Pick<Row, 'active' | 'errored_at'>): ConnectionStatus =>
  !r.active ? 'inactive' : r.errored_at !== null ? 'error' : 'active';

const toConnection = (r: Row): ChannelConnection => ({
  id: r.id,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  channelType: r.channel_type,
  provider: r.provider,
  externalIdentifier: r.external_identifier,
  name: r.name,
  agentName: r.agent_name,
  deploymentId: r.deployment_id,
  active: r.active,
  status: statusOf(r),
  credentialNames: r.credential_names,
  settings: r.settings,
  webhookPath: webhookPathOf(r.channel_type, r.external_identifier, r.provider),
  consecutiveFailures: r.consecutive_failures,
  lastError:
    r.last_error === null || r.last_error_at === null ? null : { message: r.last_error, at: r.last_error_at },
  erroredAt: r.errored_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `chc_` and 16 base62 characters, like the other ids. */
export function newConnectionId(): string {
  let out = 'chc_';
  while (out.length < 20) {
    // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps every character equally likely.
    for (const byte of randomBytes(16)) if (byte < 248 && out.length < 20) out += BASE62[byte % 62];
  }
  return out;
}

const pgCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err
    ? String((err as { code: unknown }).code)
    : undefined;

const aad = (id: string) => `channel-connection:${id}`;

function connectableEntry(channelType: string): ChannelManifestEntry {
  const entry = manifestEntry(channelType);
  if (entry === undefined) throw new UnknownChannelTypeError(channelType);
  if (!entry.isConnectionEligible) throw new ChannelNotConnectableError(channelType);
  return entry;
}

/** The connection's provider variant (null: the type has none); UnknownProviderError when it has no such one. */
function variantOf(channelType: string, provider: string | null | undefined): ProviderVariant | null {
  const variant = providerVariant(channelType, provider);
  if (variant === undefined) {
    throw new UnknownProviderError(
      channelType,
      provider ?? '',
      providerVariants(channelType).map((v) => v.provider),
    );
  }
  return variant;
}

/** The credentials of the provider variant when there is one, else of the channel type. */
function checkCredentials(
  entry: ChannelManifestEntry,
  variant: ProviderVariant | null,
  credentials: Record<string, string>,
): void {
  const names = Object.keys(credentials);
  const taking = variant ?? entry;
  const missing = taking.requiredCredentials.filter((n) => !Object.hasOwn(credentials, n));
  const taken = new Set([...taking.requiredCredentials, ...taking.optionalCredentials]);
  const unknown = names.filter((n) => !taken.has(n)).sort();
  if (missing.length > 0 || unknown.length > 0)
    throw new InvalidCredentialsError(entry.channelType, missing, unknown);
}

/** Sorted keys, so equal credential sets give equal plaintexts. */
const sortedCredentials = (c: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(c).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** Channel connections with credentials encrypted by `keyring` (packages/channels README). */
export interface ConnectionStoreOptions {
  /**
   * The SSRF guard on `settings.apiBaseUrl`, checked at create and update (400 VALIDATION_ERROR):
   * CHANNEL_API_BASE_URL_ALLOWLIST. Default: only https URLs whose every address is public.
   */
  apiBaseUrl?: ApiBaseUrlGuard;
}

export function createConnectionStore(
  pool: Pool,
  keyring: CredentialKeyring,
  options: ConnectionStoreOptions = {},
): ConnectionStore {
  const seal = (id: string, credentials: Record<string, string>) => {
    const sorted = sortedCredentials(credentials);
    const { keyId, ciphertext } = keyring.encrypt(JSON.stringify(sorted), aad(id));
    const token = sorted[VERIFY_TOKEN_CREDENTIAL];
    return {
      keyId,
      ciphertext,
      names: Object.keys(sorted),
      verifyTokenHash: token === undefined ? null : hashVerifyToken(token),
    };
  };
  const open = (r: Row): Record<string, string> =>
    JSON.parse(keyring.decrypt(r.credentials_key_id, r.credentials_ciphertext, aad(r.id))) as Record<
      string,
      string
    >;

  const toResolved = (r: Row): ResolvedConnection => ({
    id: r.id,
    tenantId: r.tenant_id,
    projectId: r.project_id,
    channelType: r.channel_type,
    provider: r.provider,
    externalIdentifier: r.external_identifier,
    agentName: r.agent_name,
    deploymentId: r.deployment_id,
    active: r.active,
    status: statusOf(r),
    credentials: open(r),
    settings: r.settings,
  });

  const uniqueViolation = (err: unknown, channelType: string, identifier: string): never => {
    if (pgCode(err) === '23505') throw new ConnectionExistsError(channelType, identifier);
    throw err;
  };

  const inTransaction = <T>(fn: (client: PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, fn);

  return {
    async create(projectId, input) {
      const c = connectionInputSchema.parse(input);
      const entry = connectableEntry(c.channelType);
      const variant = variantOf(c.channelType, c.provider);
      const provider = variant?.provider ?? null;
      checkCredentials(entry, variant, c.credentials);
      c.externalIdentifier = normalizeIdentifier(c.channelType, c.externalIdentifier, provider);
      checkSettings(c.channelType, c.settings ?? {}, provider);
      checkCredentialNames(c.channelType, provider, c.settings ?? {}, Object.keys(c.credentials));
      await checkApiBaseUrl(c.settings ?? {}, options.apiBaseUrl);
      const id = newConnectionId();
      const sealed = seal(id, c.credentials);
      try {
        const { rows } = await pool.query<Row>(
          `insert into channel_connections (id, tenant_id, project_id, channel_type, external_identifier, name,
             agent_name, deployment_id, active, settings, credentials_key_id, credentials_ciphertext,
             credential_names, verify_token_sha256, provider)
           select $1, p.tenant_id, p.id, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $13, $14
             from projects p where p.id = $2
           returning ${COLUMNS}`,
          [
            id,
            projectId,
            c.channelType,
            c.externalIdentifier,
            c.name ?? null,
            c.agentName ?? null,
            c.deploymentId ?? null,
            c.active ?? true,
            JSON.stringify(c.settings ?? {}),
            sealed.keyId,
            sealed.ciphertext,
            sealed.names,
            sealed.verifyTokenHash,
            provider,
          ],
        );
        if (rows[0] === undefined) throw new ProjectNotFoundError();
        return toConnection(rows[0]);
      } catch (err) {
        return uniqueViolation(err, c.channelType, c.externalIdentifier);
      }
    },

    async list(projectId, page = { limit: 50, offset: 0 }) {
      const { rows } = await pool.query<Row & { total: string }>(
        `select ${COLUMNS}, count(*) over () as total from channel_connections where project_id = $1
         order by created_at, id limit $2 offset $3`,
        [projectId, page.limit, page.offset],
      );
      let total = rows[0] === undefined ? 0 : Number(rows[0].total);
      if (rows.length === 0 && page.offset > 0) {
        const counted = await pool.query<{ n: string }>(
          'select count(*) as n from channel_connections where project_id = $1',
          [projectId],
        );
        total = Number(counted.rows[0]?.n ?? 0);
      }
      return { connections: rows.map(toConnection), total };
    },

    async get(projectId, id) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from channel_connections where project_id = $1 and id = $2`,
        [projectId, id],
      );
      return rows[0] === undefined ? null : toConnection(rows[0]);
    },

    async update(projectId, id, patch) {
      const p = connectionPatchSchema.parse(patch);
      // Before the row is locked: the check may wait on DNS.
      if (p.settings !== undefined) await checkApiBaseUrl(p.settings, options.apiBaseUrl);
      return inTransaction(async (client) => {
        const { rows } = await client.query<Row>(
          `select ${COLUMNS} from channel_connections where project_id = $1 and id = $2 for update`,
          [projectId, id],
        );
        const row = rows[0];
        if (row === undefined) throw new ConnectionNotFoundError(id);
        const variant = providerVariant(row.channel_type, row.provider) ?? null;
        let sealed: ReturnType<typeof seal> | undefined;
        if (p.credentials !== undefined) {
          const merged = open(row);
          for (const [k, v] of Object.entries(p.credentials)) {
            if (v === null) delete merged[k];
            else merged[k] = v;
          }
          const entry = manifestEntry(row.channel_type);
          if (entry !== undefined) checkCredentials(entry, variant, merged);
          sealed = seal(id, merged);
        }
        // Turning a connection (back) on clears its error: the operator fixed what failed.
        const reactivated = p.active === true && (!row.active || row.errored_at !== null);
        const identifier =
          p.externalIdentifier === undefined
            ? row.external_identifier
            : normalizeIdentifier(row.channel_type, p.externalIdentifier, row.provider);
        if (p.settings !== undefined) checkSettings(row.channel_type, p.settings, row.provider);
        // What the settings require of the credentials (a Vonage connection's API), on the result.
        if (p.settings !== undefined || sealed !== undefined)
          checkCredentialNames(
            row.channel_type,
            row.provider,
            p.settings ?? row.settings,
            sealed?.names ?? row.credential_names,
          );
        try {
          const updated = await client.query<Row>(
            `update channel_connections set
               external_identifier = $3,
               name = case when $4::boolean then $5 else name end,
               agent_name = case when $6::boolean then $7 else agent_name end,
               deployment_id = case when $8::boolean then $9 else deployment_id end,
               active = coalesce($10, active),
               settings = coalesce($11::jsonb, settings),
               credentials_key_id = coalesce($12, credentials_key_id),
               credentials_ciphertext = coalesce($13, credentials_ciphertext),
               credential_names = coalesce($14, credential_names),
               verify_token_sha256 = case when $15::boolean then $16 else verify_token_sha256 end,
               consecutive_failures = case when $17::boolean then 0 else consecutive_failures end,
               errored_at = case when $17::boolean then null else errored_at end,
               updated_at = now()
             where id = $1 and project_id = $2
             returning ${COLUMNS}`,
            [
              id,
              projectId,
              identifier,
              p.name !== undefined,
              p.name ?? null,
              p.agentName !== undefined,
              p.agentName ?? null,
              p.deploymentId !== undefined,
              p.deploymentId ?? null,
              p.active ?? null,
              p.settings === undefined ? null : JSON.stringify(p.settings),
              sealed?.keyId ?? null,
              sealed?.ciphertext ?? null,
              sealed?.names ?? null,
              sealed !== undefined,
              sealed?.verifyTokenHash ?? null,
              reactivated,
            ],
          );
          return toConnection(updated.rows[0]!);
        } catch (err) {
          return uniqueViolation(err, row.channel_type, identifier);
        }
      });
    },

    async delete(projectId, id) {
      const { rowCount } = await pool.query(
        'delete from channel_connections where project_id = $1 and id = $2',
        [projectId, id],
      );
      return (rowCount ?? 0) > 0;
    },

    async resolve(channelType, externalIdentifier) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from channel_connections where channel_type = $1 and external_identifier = $2`,
        [channelType, externalIdentifier],
      );
      return rows[0] === undefined ? null : toResolved(rows[0]);
    },

    async resolveById(id) {
      const { rows } = await pool.query<Row>(`select ${COLUMNS} from channel_connections where id = $1`, [
        id,
      ]);
      return rows[0] === undefined ? null : toResolved(rows[0]);
    },

    async findByVerifyToken(channelType, token) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from channel_connections
         where channel_type = $1 and verify_token_sha256 = $2 and active
         order by created_at, id limit 1`,
        [channelType, hashVerifyToken(token)],
      );
      return rows[0] === undefined ? null : toResolved(rows[0]);
    },

    async recordSendFailure(id, error) {
      const { rows } = await pool.query<Pick<Row, 'active' | 'errored_at' | 'consecutive_failures'>>(
        `update channel_connections set
           consecutive_failures = consecutive_failures + 1,
           last_error = left($2, 1000),
           last_error_at = now(),
           errored_at = case when errored_at is null and consecutive_failures + 1 >= $3 then now()
                        else errored_at end
         where id = $1
         returning active, errored_at, consecutive_failures`,
        [id, error, CONNECTION_ERROR_THRESHOLD],
      );
      const row = rows[0];
      return row === undefined
        ? null
        : { status: statusOf(row), consecutiveFailures: row.consecutive_failures };
    },

    async recordSendSuccess(id) {
      await pool.query(
        `update channel_connections set consecutive_failures = 0, errored_at = null
         where id = $1 and (consecutive_failures <> 0 or errored_at is not null)`,
        [id],
      );
    },

    async rotateCredentials(options = {}) {
      const batchSize = options.batchSize ?? 100;
      let reencrypted = 0;
      for (;;) {
        const done = await inTransaction(async (client) => {
          const { rows } = await client.query<Row>(
            `select ${COLUMNS} from channel_connections where credentials_key_id <> $1
             order by id limit $2 for update skip locked`,
            [keyring.currentKeyId, batchSize],
          );
          for (const row of rows) {
            const sealed = seal(row.id, open(row));
            await client.query(
              `update channel_connections set credentials_key_id = $2, credentials_ciphertext = $3 where id = $1`,
              [row.id, sealed.keyId, sealed.ciphertext],
            );
          }
          reencrypted += rows.length;
          return rows.length < batchSize;
        });
        if (done) return { reencrypted };
      }
    },
  };
}
