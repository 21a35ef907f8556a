import type { Pool } from '@parley/platform';
import { createApiKeyQueries } from './apiKeys.js';
import { createProjectQueries } from './projects.js';
import { createPublicKeyQueries } from './publicKeys.js';
import { createTenantProjects } from './tenantProjects.js';
import { createTenantQueries } from './tenants.js';
import { createApiKeyVerifier } from './verifyApiKey.js';

export interface AuthStoreOptions {
  /** The clock for expiry, revocation and last-used times (tests pass their own). */
  now?: () => Date;
  /**
   * Cache successful key verifications in memory this long (default 0: every
   * verification reads the database). The API may pass a few seconds: a
   * revocation made elsewhere then takes effect within that time. The same TTL applies to
   * `tenantProjects` (a user JWT's tenant and projects).
   */
  verifyCacheTtlMs?: number;
  verifyCacheMaxEntries?: number;
  /** How often at most a key's last_used_at is written (default 60 s). */
  lastUsedResolutionMs?: number;
}

/**
 * Tenants, projects and platform API keys: configuration lookups in ordinary
 * tables (the `auth` migration set), not events.
 */
export function createAuthStore(pool: Pool, options: AuthStoreOptions = {}) {
  const now = options.now ?? (() => new Date());
  const keys = createApiKeyQueries(pool, now);
  const verifier = createApiKeyVerifier(pool, {
    now,
    cacheTtlMs: options.verifyCacheTtlMs,
    cacheMaxEntries: options.verifyCacheMaxEntries,
    lastUsedResolutionMs: options.lastUsedResolutionMs,
  });
  return {
    ...createTenantQueries(pool),
    ...createProjectQueries(pool),
    ...keys,
    ...createPublicKeyQueries(pool, now),
    async revokeApiKey(keyId: string) {
      const record = await keys.revokeApiKey(keyId);
      verifier.forget(keyId);
      return record;
    },
    verifyApiKey: verifier.verifyApiKey,
    /** A user JWT's check: which of the projects are the tenant's (null: no such tenant). */
    tenantProjects: createTenantProjects(pool, {
      cacheTtlMs: options.verifyCacheTtlMs,
      cacheMaxEntries: options.verifyCacheMaxEntries,
    }),
  };
}

export type AuthStore = ReturnType<typeof createAuthStore>;
