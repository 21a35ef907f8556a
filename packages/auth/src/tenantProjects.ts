import type { Pool } from '@parley/platform';

export interface TenantProjectsOptions {
  /** Keep answers this long in memory (0, the default: every call reads the database). */
  cacheTtlMs?: number;
  /** Bound on cached answers; the oldest entry goes first. */
  cacheMaxEntries?: number;
}

interface CacheEntry {
  owned: readonly string[] | null;
  cachedAt: number;
}

/**
 * What a user JWT's claims are checked against (@parley/http createJwtVerifier's
 * `tenantProjects`): the projects among `projectIds` that belong to `tenantId`, or null when no
 * such tenant exists. One query. Unknown tenants are cached as well as known ones, so a stream of
 * tokens naming made-up tenants costs one query per tenant and TTL, not one per request.
 */
export function createTenantProjects(pool: Pool, options: TenantProjectsOptions = {}) {
  const ttl = options.cacheTtlMs ?? 0;
  const maxEntries = options.cacheMaxEntries ?? 10_000;
  const cache = new Map<string, CacheEntry>();

  async function lookup(tenantId: string, projectIds: readonly string[]): Promise<readonly string[] | null> {
    const { rows } = await pool.query<{ known: boolean; owned: string[] }>(
      `select exists (select 1 from tenants where id = $1) as known,
              array(select id from projects where tenant_id = $1 and id = any($2::text[])) as owned`,
      [tenantId, [...projectIds]],
    );
    const row = rows[0];
    return row?.known ? row.owned : null;
  }

  return async function tenantProjects(
    tenantId: string,
    projectIds: readonly string[],
  ): Promise<readonly string[] | null> {
    if (ttl <= 0) return lookup(tenantId, projectIds);
    const key = `${tenantId}\u0000${[...projectIds].sort().join('\u0000')}`;
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.cachedAt < ttl) return hit.owned;
    const owned = await lookup(tenantId, projectIds);
    cache.delete(key);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, { owned, cachedAt: now });
    return owned;
  };
}
