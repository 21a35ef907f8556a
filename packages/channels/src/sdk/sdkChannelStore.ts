import { randomBytes } from 'node:crypto';
import type { Pool } from '@parley/platform';
import { ProjectNotFoundError } from '../connections/errors.js';
import { PublicKeyNotUsableError, SdkChannelNotFoundError } from './sdkChannelErrors.js';
import {
  type SdkChannelInput,
  type SdkChannelPage,
  type SdkChannelPatch,
  type SdkChannelType,
  type SdkEnvironment,
  sdkChannelInputSchema,
  sdkChannelPatchSchema,
  type WidgetConfig,
} from './sdkChannelSchema.js';

/** Spec 001 §2.4. */
export interface SdkChannel {
  id: string;
  tenantId: string;
  projectId: string;
  name: string;
  channelType: SdkChannelType;
  deploymentId: string | null;
  publicApiKeyId: string;
  config: WidgetConfig;
  isActive: boolean;
  environment: SdkEnvironment;
  followEnvironment: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface SdkChannelStore {
  /** ProjectNotFoundError, PublicKeyNotUsableError. */
  create(projectId: string, input: SdkChannelInput): Promise<SdkChannel>;
  /** Oldest first; `total` counts all of the project's channels. */
  list(projectId: string, page?: SdkChannelPage): Promise<{ channels: SdkChannel[]; total: number }>;
  /** Null when absent (or of another project). */
  get(projectId: string, id: string): Promise<SdkChannel | null>;
  /** SdkChannelNotFoundError, PublicKeyNotUsableError (a changed key is checked like on create). */
  update(projectId: string, id: string, patch: SdkChannelPatch): Promise<SdkChannel>;
  /** False when absent. */
  delete(projectId: string, id: string): Promise<boolean>;
  /**
   * The SDK bootstrap's lookup: the oldest active channel of the project bound to the public key,
   * of `channelType` when given; null when none.
   */
  findActive(query: {
    projectId: string;
    publicApiKeyId: string;
    channelType?: SdkChannelType;
  }): Promise<SdkChannel | null>;
  /** A channel by id alone (a share or embed token names it); null when absent. */
  resolve(id: string): Promise<SdkChannel | null>;
}

interface Row {
  id: string;
  tenant_id: string;
  project_id: string;
  name: string;
  channel_type: SdkChannelType;
  deployment_id: string | null;
  public_api_key_id: string;
  config: WidgetConfig;
  is_active: boolean;
  environment: SdkEnvironment;
  follow_environment: boolean;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, tenant_id, project_id, name, channel_type, deployment_id, public_api_key_id, config,
  is_active, environment, follow_environment, created_at, updated_at`;

const toChannel = (r: Row): SdkChannel => ({
  id: r.id,
  tenantId: r.tenant_id,
  projectId: r.project_id,
  name: r.name,
  channelType: r.channel_type,
  deploymentId: r.deployment_id,
  publicApiKeyId: r.public_api_key_id,
  config: r.config,
  isActive: r.is_active,
  environment: r.environment,
  followEnvironment: r.follow_environment,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `sdkc_` and 16 base62 characters. */
export function newSdkChannelId(): string {
  let out = 'sdkc_';
  while (out.length < 21) {
    // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps every character equally likely.
    for (const byte of randomBytes(16)) if (byte < 248 && out.length < 21) out += BASE62[byte % 62];
  }
  return out;
}

/** SQL: the key (a parameter) is one the channel can use: of the project, not revoked. */
const usableKey = (keyParam: string, projectExpr: string) =>
  `exists (select 1 from public_api_keys k
     where k.id = ${keyParam} and k.project_id = ${projectExpr} and k.revoked_at is null)`;

/**
 * SDK channels (spec 001 §2.4, §4.6) in `sdk_channels`. Reads `public_api_keys` (auth migration
 * 0002) to check that a channel's key is an active key of its project.
 */
export function createSdkChannelStore(pool: Pool): SdkChannelStore {
  const projectExists = async (projectId: string): Promise<boolean> =>
    (await pool.query('select 1 from projects where id = $1', [projectId])).rowCount === 1;

  const store: SdkChannelStore = {
    async create(projectId, input) {
      const c = sdkChannelInputSchema.parse(input);
      // One statement: a key revoked meanwhile cannot slip in between a check and the insert.
      const { rows } = await pool.query<Row>(
        `insert into sdk_channels (id, tenant_id, project_id, name, channel_type, deployment_id,
           public_api_key_id, config, is_active, environment, follow_environment)
         select $1, p.tenant_id, p.id, $3, $4, $5, $6, $7::jsonb, $8::boolean, $9, $10::boolean from projects p
         where p.id = $2 and ${usableKey('$6', 'p.id')}
         returning ${COLUMNS}`,
        [
          newSdkChannelId(),
          projectId,
          c.name,
          c.channelType,
          c.deploymentId ?? null,
          c.publicApiKeyId,
          JSON.stringify(c.config),
          c.isActive,
          c.environment,
          c.followEnvironment,
        ],
      );
      if (rows[0] !== undefined) return toChannel(rows[0]);
      if (!(await projectExists(projectId))) throw new ProjectNotFoundError();
      throw new PublicKeyNotUsableError(c.publicApiKeyId);
    },

    async list(projectId, page = { limit: 50, offset: 0 }) {
      const { rows } = await pool.query<Row & { total: string }>(
        `select ${COLUMNS}, count(*) over () as total from sdk_channels where project_id = $1
         order by created_at, id limit $2 offset $3`,
        [projectId, page.limit, page.offset],
      );
      let total = rows[0] === undefined ? 0 : Number(rows[0].total);
      // Past the last page the window count is absent: count separately.
      if (rows.length === 0 && page.offset > 0) {
        const counted = await pool.query<{ n: string }>(
          'select count(*) as n from sdk_channels where project_id = $1',
          [projectId],
        );
        total = Number(counted.rows[0]?.n ?? 0);
      }
      return { channels: rows.map(toChannel), total };
    },

    async get(projectId, id) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from sdk_channels where project_id = $1 and id = $2`,
        [projectId, id],
      );
      return rows[0] === undefined ? null : toChannel(rows[0]);
    },

    async update(projectId, id, patch) {
      const p = sdkChannelPatchSchema.parse(patch);
      const sets: string[] = [];
      const values: unknown[] = [projectId, id];
      const set = (column: string, value: unknown): string => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
        return `$${values.length}`;
      };
      if (p.name !== undefined) set('name', p.name);
      const keyParam = p.publicApiKeyId === undefined ? null : set('public_api_key_id', p.publicApiKeyId);
      if (p.deploymentId !== undefined) set('deployment_id', p.deploymentId);
      if (p.config !== undefined) set('config', JSON.stringify(p.config));
      if (p.isActive !== undefined) set('is_active', p.isActive);
      if (p.environment !== undefined) set('environment', p.environment);
      if (p.followEnvironment !== undefined) set('follow_environment', p.followEnvironment);
      if (sets.length === 0) {
        const current = await store.get(projectId, id);
        if (current === null) throw new SdkChannelNotFoundError(id);
        return current;
      }
      const keyCheck = keyParam === null ? '' : `and ${usableKey(keyParam, '$1')}`;
      const { rows } = await pool.query<Row>(
        `update sdk_channels set ${sets.join(', ')}, updated_at = now()
         where project_id = $1 and id = $2 ${keyCheck}
         returning ${COLUMNS}`,
        values,
      );
      if (rows[0] !== undefined) return toChannel(rows[0]);
      // Not found wins over an unusable key: the caller learns the id is wrong first.
      if ((await store.get(projectId, id)) === null) throw new SdkChannelNotFoundError(id);
      throw new PublicKeyNotUsableError(p.publicApiKeyId ?? '');
    },

    async delete(projectId, id) {
      const { rowCount } = await pool.query('delete from sdk_channels where project_id = $1 and id = $2', [
        projectId,
        id,
      ]);
      return (rowCount ?? 0) > 0;
    },

    async findActive({ projectId, publicApiKeyId, channelType }) {
      const { rows } = await pool.query<Row>(
        `select ${COLUMNS} from sdk_channels
         where project_id = $1 and public_api_key_id = $2 and is_active and ($3::text is null or channel_type = $3)
         order by created_at, id limit 1`,
        [projectId, publicApiKeyId, channelType ?? null],
      );
      return rows[0] === undefined ? null : toChannel(rows[0]);
    },

    async resolve(id) {
      const { rows } = await pool.query<Row>(`select ${COLUMNS} from sdk_channels where id = $1`, [id]);
      return rows[0] === undefined ? null : toChannel(rows[0]);
    },
  };
  return store;
}
