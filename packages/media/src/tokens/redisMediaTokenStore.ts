import type { Redis } from 'ioredis';
import {
  assertTtl,
  hashMediaToken,
  isMediaTokenShaped,
  type MediaTokenBinding,
  type MediaTokenClaims,
  type MediaTokenStore,
  newMediaToken,
  sameBinding,
} from './mediaTokenStore.js';

export interface RedisMediaTokenStoreOptions {
  /** Prefix of the token keys (default `parley:media-token:`). */
  prefix?: string;
  now?: () => number;
}

interface StoredClaims {
  p: string;
  r: string;
  i: number;
  e: number;
}

/**
 * Media tokens shared by all API processes: `<prefix><sha256(token)>` → the claims as JSON, with the
 * token's TTL as the key's expiry (so Redis forgets them on its own). The stored expiry is checked too,
 * so a token never outlives its `expiresAt` even by Redis' expiry granularity.
 */
export function createRedisMediaTokenStore(
  redis: Redis,
  options: RedisMediaTokenStoreOptions = {},
): MediaTokenStore {
  const prefix = options.prefix ?? 'parley:media-token:';
  const now = options.now ?? Date.now;

  return {
    async issue(binding: MediaTokenBinding, ttlSeconds: number) {
      assertTtl(ttlSeconds);
      const token = newMediaToken();
      const expiresAt = new Date(now() + ttlSeconds * 1000);
      const stored: StoredClaims = {
        p: binding.projectId,
        r: binding.recordingId,
        i: binding.objectIndex,
        e: expiresAt.getTime(),
      };
      await redis.set(`${prefix}${hashMediaToken(token)}`, JSON.stringify(stored), 'EX', ttlSeconds);
      return { token, expiresAt };
    },
    async verify(token: string, expected: MediaTokenBinding) {
      if (!isMediaTokenShaped(token)) return null;
      const raw = await redis.get(`${prefix}${hashMediaToken(token)}`);
      const claims = raw === null ? null : parseClaims(raw);
      if (claims === null || claims.expiresAt.getTime() <= now()) return null;
      return sameBinding(claims, expected) ? claims : null;
    },
    async close() {
      // The Redis client belongs to the caller, who closes it.
    },
  };
}

function parseClaims(raw: string): MediaTokenClaims | null {
  try {
    const value = JSON.parse(raw) as Partial<StoredClaims>;
    if (
      typeof value.p !== 'string' ||
      typeof value.r !== 'string' ||
      typeof value.i !== 'number' ||
      typeof value.e !== 'number'
    ) {
      return null;
    }
    return { projectId: value.p, recordingId: value.r, objectIndex: value.i, expiresAt: new Date(value.e) };
  } catch {
    return null;
  }
}
