import type { ActiveSessionDecision, ActiveSessionLimiter } from './activeSessionLimiter.js';

export interface InProcessActiveSessionLimiterOptions {
  now?: () => number;
}

/**
 * The concurrent sessions limit of a single process (REDIS_URL unset), with
 * the Redis implementation's semantics: per tenant, session → last activity,
 * in activity order (a Map re-inserted on every touch), so expired sessions
 * are swept from the front.
 */
export function createInProcessActiveSessionLimiter(
  options: InProcessActiveSessionLimiterOptions = {},
): ActiveSessionLimiter {
  const now = options.now ?? Date.now;
  const tenants = new Map<string, Map<string, number>>();

  function sessionsOf(tenantId: string, at: number, windowMs: number): Map<string, number> {
    let sessions = tenants.get(tenantId);
    if (sessions === undefined) {
      sessions = new Map();
      tenants.set(tenantId, sessions);
    }
    for (const [member, lastActive] of sessions) {
      if (lastActive > at - windowMs) break;
      sessions.delete(member);
    }
    return sessions;
  }

  return {
    async acquire(tenantId, member, limit, windowMs): Promise<ActiveSessionDecision> {
      const at = now();
      const sessions = sessionsOf(tenantId, at, windowMs);
      if (sessions.has(member) || sessions.size < limit) {
        sessions.delete(member);
        sessions.set(member, at);
        return { allowed: true, active: sessions.size, retryAfterMs: 0 };
      }
      const oldest = sessions.values().next();
      const retryAfterMs = oldest.done ? 0 : Math.max(0, oldest.value + windowMs - at);
      return { allowed: false, active: sessions.size, retryAfterMs };
    },
    async rename(tenantId, from, to, windowMs) {
      const at = now();
      const sessions = sessionsOf(tenantId, at, windowMs);
      sessions.delete(from);
      sessions.delete(to);
      sessions.set(to, at);
    },
    async release(tenantId, member) {
      const sessions = tenants.get(tenantId);
      sessions?.delete(member);
      if (sessions?.size === 0) tenants.delete(tenantId);
    },
  };
}
