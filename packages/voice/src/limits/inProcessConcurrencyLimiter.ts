import type { AdmitDecision, VoiceConcurrencyLimiter, VoicePool } from './concurrencyLimiter.js';

/** The voice limits of one API process (no REDIS_URL): what Redis does, in a Map. */
export function createInProcessVoiceConcurrencyLimiter(
  options: { now?: () => number } = {},
): VoiceConcurrencyLimiter {
  const now = options.now ?? Date.now;
  const sets = new Map<string, Map<string, number>>();
  const live = (tenantId: string, pool: VoicePool, at: number) => {
    const name = `${pool}:${tenantId}`;
    let set = sets.get(name);
    if (!set) {
      set = new Map();
      sets.set(name, set);
    }
    for (const [member, expiry] of set) if (expiry <= at) set.delete(member);
    return set;
  };

  return {
    async admit(tenantId, slots, holdMs): Promise<AdmitDecision> {
      const at = now();
      for (const slot of slots) {
        const set = live(tenantId, slot.pool, at);
        if (!set.has(slot.member) && set.size >= slot.limit) {
          return {
            admitted: false,
            pool: slot.pool,
            active: set.size,
            retryAfterMs: Math.max(0, Math.min(...set.values()) - at),
          };
        }
      }
      for (const slot of slots) live(tenantId, slot.pool, at).set(slot.member, at + holdMs);
      return { admitted: true };
    },
    async release(tenantId, pool, member) {
      sets.get(`${pool}:${tenantId}`)?.delete(member);
    },
    async active(tenantId, pool) {
      return live(tenantId, pool, now()).size;
    },
  };
}
