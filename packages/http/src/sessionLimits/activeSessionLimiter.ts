/**
 * The per-tenant concurrent sessions limit (spec 000 §8). A session counts as
 * active from a message until `windowMs` after its latest one, or until it is
 * released (ended). A new session, not yet given an id by the runtime, is
 * admitted under a reservation that is renamed to its id once it has one.
 * Implementations: createInProcessActiveSessionLimiter (one process) and
 * createRedisActiveSessionLimiter (shared by every API process).
 */
export interface ActiveSessionLimiter {
  /**
   * Counts `member` active now (refreshing it when it already counts), unless
   * `limit` other sessions of the tenant are active: then it is refused and
   * nothing changes.
   */
  acquire(tenantId: string, member: string, limit: number, windowMs: number): Promise<ActiveSessionDecision>;
  /** The reservation `from` becomes `to` (the session's id), active as of now. */
  rename(tenantId: string, from: string, to: string, windowMs: number): Promise<void>;
  /** `member` no longer counts (its session ended, or its first turn failed). */
  release(tenantId: string, member: string): Promise<void>;
}

export interface ActiveSessionDecision {
  allowed: boolean;
  /** Active sessions of the tenant, this one included when allowed. */
  active: number;
  /** When refused: how long until the least recently active session stops counting. */
  retryAfterMs: number;
}
