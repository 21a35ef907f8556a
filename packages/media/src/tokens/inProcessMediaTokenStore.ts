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

export interface InProcessMediaTokenStoreOptions {
  now?: () => number;
}

/** A full sweep costs one pass over the map: at most once a second, whatever the issue rate. */
const SWEEP_INTERVAL_MS = 1_000;

/**
 * Media tokens in this process's memory, for a single API process without REDIS_URL. Expired entries are
 * swept when tokens are issued, so the map holds little more than the tokens live within one TTL.
 */
export function createInProcessMediaTokenStore(
  options: InProcessMediaTokenStoreOptions = {},
): MediaTokenStore {
  const now = options.now ?? Date.now;
  const claimsByHash = new Map<string, MediaTokenClaims>();

  let lastSweep = Number.NEGATIVE_INFINITY;
  const sweep = () => {
    const t = now();
    if (t - lastSweep < SWEEP_INTERVAL_MS) return;
    lastSweep = t;
    for (const [hash, claims] of claimsByHash) if (claims.expiresAt.getTime() <= t) claimsByHash.delete(hash);
  };

  return {
    async issue(binding: MediaTokenBinding, ttlSeconds: number) {
      assertTtl(ttlSeconds);
      sweep();
      const token = newMediaToken();
      const expiresAt = new Date(now() + ttlSeconds * 1000);
      claimsByHash.set(hashMediaToken(token), {
        projectId: binding.projectId,
        recordingId: binding.recordingId,
        objectIndex: binding.objectIndex,
        expiresAt,
      });
      return { token, expiresAt };
    },
    async verify(token: string, expected: MediaTokenBinding) {
      if (!isMediaTokenShaped(token)) return null;
      const claims = claimsByHash.get(hashMediaToken(token));
      if (claims === undefined || claims.expiresAt.getTime() <= now()) return null;
      return sameBinding(claims, expected) ? { ...claims, expiresAt: new Date(claims.expiresAt) } : null;
    },
    async close() {
      claimsByHash.clear();
    },
  };
}
