import type { Pool } from '@parley/platform';
import { tenantNotFound, validationError } from './errors.js';
import { newTenantId } from './ids.js';
import type { Tenant, TenantFeatures } from './types.js';
import { checkName, isPlainObject } from './validation.js';

interface TenantRow {
  id: string;
  name: string;
  features: TenantFeatures;
  rate_limit_per_second: number | null;
  created_at: Date;
}

const COLUMNS = 'id, name, features, rate_limit_per_second, created_at';

const toTenant = (r: TenantRow): Tenant => ({
  id: r.id,
  name: r.name,
  features: r.features,
  rateLimitPerSecond: r.rate_limit_per_second,
  createdAt: r.created_at,
});

function checkRateLimit(value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) {
    throw validationError('rateLimitPerSecond must be a whole number from 1 to 1,000,000, or null');
  }
  return value;
}

export interface CreateTenantInput {
  name: string;
  features?: TenantFeatures;
  rateLimitPerSecond?: number | null;
}

export function createTenantQueries(pool: Pool) {
  return {
    async createTenant(input: CreateTenantInput): Promise<Tenant> {
      const name = checkName('tenant name', input.name);
      const features = input.features ?? {};
      if (!isPlainObject(features)) throw validationError('features must be a JSON object');
      const { rows } = await pool.query<TenantRow>(
        `insert into tenants (id, name, features, rate_limit_per_second) values ($1, $2, $3, $4)
         returning ${COLUMNS}`,
        [newTenantId(), name, JSON.stringify(features), checkRateLimit(input.rateLimitPerSecond)],
      );
      return toTenant(rows[0]!);
    },

    async getTenant(id: string): Promise<Tenant | null> {
      const { rows } = await pool.query<TenantRow>(`select ${COLUMNS} from tenants where id = $1`, [id]);
      return rows[0] ? toTenant(rows[0]) : null;
    },

    async listTenants(): Promise<Tenant[]> {
      const { rows } = await pool.query<TenantRow>(`select ${COLUMNS} from tenants order by created_at, id`);
      return rows.map(toTenant);
    },

    /** Merges the given switches into the tenant's features (top-level keys replaced). */
    async setTenantFeatures(id: string, features: TenantFeatures): Promise<Tenant> {
      if (!isPlainObject(features)) throw validationError('features must be a JSON object');
      const { rows } = await pool.query<TenantRow>(
        `update tenants set features = features || $2::jsonb where id = $1 returning ${COLUMNS}`,
        [id, JSON.stringify(features)],
      );
      if (!rows[0]) throw tenantNotFound(id);
      return toTenant(rows[0]);
    },

    /** Sets the tenant's request-rate override; null returns it to the deployment's default. */
    async setTenantRateLimit(id: string, rateLimitPerSecond: number | null): Promise<Tenant> {
      const { rows } = await pool.query<TenantRow>(
        `update tenants set rate_limit_per_second = $2 where id = $1 returning ${COLUMNS}`,
        [id, checkRateLimit(rateLimitPerSecond)],
      );
      if (!rows[0]) throw tenantNotFound(id);
      return toTenant(rows[0]);
    },
  };
}
