import {
  type AdmitDecision,
  slotSetName,
  type VoiceConcurrencyLimiter,
  type VoicePool,
  type VoiceScope,
} from './concurrencyLimiter.js';

/** The voice limits of one API process (no REDIS_URL): what Redis does, in a Map. */
export function createInProcessVoiceConcurrencyLimiter(
  options: { now?: () => number } = {},
): VoiceConcurrencyLimiter {
  const now = options.now ?? Date.now;
  const sets = new Map<string, Map<string, number>>();
  const live = (tenantId: string, pool: VoicePool, scope: VoiceScope | undefined, at: number) => {
    const name = slotSetName(tenantId, pool, scope);
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
        const set = live(tenantId, slot.pool, slot.scope, at);
        if (!set.has(slot.member) && set.size >= slot.limit) {
          return {
            admitted: false,
            pool: slot.pool,
            scope: slot.scope ?? 'tenant',
            active: set.size,
            retryAfterMs: Math.max(0, Math.min(...set.values()) - at),
          };
        }
      }
      for (const slot of slots) live(tenantId, slot.pool, slot.scope, at).set(slot.member, at + holdMs);
      return { admitted: true };
    },
    async release(tenantId, pool, member, scope) {
      sets.get(slotSetName(tenantId, pool, scope))?.delete(member);
    },
    async active(tenantId, pool, scope) {
      return live(tenantId, pool, scope, now()).size;
    },
  };
}
