import { createHash } from 'node:crypto';
import { constantTimeEqual, type Pool } from '@parley/platform';
import { hashApiKey, parseApiKey } from './apiKey.js';
import { expandScopes } from './scopes.js';
import type { Principal, VerifyApiKeyResult } from './types.js';

export interface VerifierOptions {
  now: () => Date;
  /**
   * Keep successful verifications this long in memory (0, the default: no
   * cache). A revocation made by another process takes effect within this
   * time; one made through the same store at once.
   */
  cacheTtlMs?: number;
  /** Bound on cached keys; the oldest entry goes first. */
  cacheMaxEntries?: number;
  /** last_used_at is written at most this often per key (a write per request would be a hot row). */
  lastUsedResolutionMs?: number;
}

interface KeyRow {
  id: string;
  tenant_id: string;
  project_id: string;
  key_hash: Buffer;
  scopes: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

interface CacheEntry {
  principal: Principal;
  expiresAt: Date | null;
  cachedAt: number;
}

// Compared against when the prefix is unknown, so both failure paths do the same work.
const DUMMY_HASH = createHash('sha256').update('parley: no such key').digest();

export function createApiKeyVerifier(pool: Pool, options: VerifierOptions) {
  const ttl = options.cacheTtlMs ?? 0;
  const maxEntries = options.cacheMaxEntries ?? 10_000;
  const lastUsedResolution = options.lastUsedResolutionMs ?? 60_000;
  // Keyed by the key's hash, never the key; only keys that verified get in.
  const cache = new Map<string, CacheEntry>();

  function fromCache(hashHex: string, now: Date): VerifyApiKeyResult | null {
    const entry = cache.get(hashHex);
    if (!entry) return null;
    if (now.getTime() - entry.cachedAt >= ttl) {
      cache.delete(hashHex);
      return null;
    }
    if (entry.expiresAt !== null && entry.expiresAt.getTime() <= now.getTime()) {
      return { ok: false, reason: 'expired' };
    }
    return { ok: true, principal: entry.principal };
  }

  async function verifyApiKey(raw: string | undefined | null): Promise<VerifyApiKeyResult> {
    const parsed = parseApiKey(raw);
    if (parsed === null) return { ok: false, reason: 'malformed' };
    const key = raw as string;
    const hash = hashApiKey(key);
    const now = options.now();
    const hashHex = ttl > 0 ? hash.toString('hex') : '';
    if (ttl > 0) {
      const cached = fromCache(hashHex, now);
      if (cached) return cached;
    }
    const { rows } = await pool.query<KeyRow>(
      `select id, tenant_id, project_id, key_hash, scopes, expires_at, revoked_at, last_used_at
       from api_keys where lookup_prefix = $1`,
      [parsed.lookupPrefix],
    );
    const row = rows[0];
    // Constant-time compare either way; see the README ("Timing").
    const matches = constantTimeEqual(hash, row ? row.key_hash : DUMMY_HASH);
    if (!row || !matches) return { ok: false, reason: 'unknown' };
    // Only the holder of the real key learns that it is revoked or expired.
    if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
    if (row.expires_at !== null && row.expires_at.getTime() <= now.getTime()) {
      return { ok: false, reason: 'expired' };
    }
    if (row.last_used_at === null || now.getTime() - row.last_used_at.getTime() >= lastUsedResolution) {
      await pool.query(
        'update api_keys set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at < $2)',
        [row.id, now],
      );
    }
    const principal: Principal = {
      keyId: row.id,
      tenantId: row.tenant_id,
      projectId: row.project_id,
      scopes: row.scopes,
      permissions: expandScopes(row.scopes),
    };
    if (ttl > 0) {
      if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
      cache.set(hashHex, { principal, expiresAt: row.expires_at, cachedAt: now.getTime() });
    }
    return { ok: true, principal };
  }

  /** Drops a key from this process's cache (after a revocation through this store). */
  function forget(keyId: string): void {
    for (const [hashHex, entry] of cache) if (entry.principal.keyId === keyId) cache.delete(hashHex);
  }

  return { verifyApiKey, forget };
}
