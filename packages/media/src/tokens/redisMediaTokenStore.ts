import type { Redis } from 'ioredis';
import { z } from 'zod';
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

/** The claims as stored in Redis (short keys), parsed when read back: another process wrote them. */
const storedClaimsSchema = z.object({ p: z.string(), r: z.string(), i: z.number(), e: z.number() });
type StoredClaims = z.infer<typeof storedClaimsSchema>;

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
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const parsed = storedClaimsSchema.safeParse(json);
  if (!parsed.success) return null;
  const { p, r, i, e } = parsed.data;
  return { projectId: p, recordingId: r, objectIndex: i, expiresAt: new Date(e) };
}
