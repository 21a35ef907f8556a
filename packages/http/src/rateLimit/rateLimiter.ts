/**
 * A sliding-window log per key: a request is admitted while fewer than `limit` requests were
 * admitted in the last `windowMs` (the window (now - windowMs, now]), so no interval of `windowMs`
 * ever admits more than `limit` (no edge burst). Refused requests are not counted, so a caller that
 * keeps retrying is admitted again as soon as its oldest admitted request leaves the window.
 * Implementations: createInProcessRateLimiter (one process) and createRedisRateLimiter (shared by
 * every API process). Why not a library: docs/decisions.md.
 */
export interface RateLimiter {
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export interface RateLimitDecision {
  /** True when this request is admitted. */
  allowed: boolean;
  /** Requests the window still admits after this one (never negative). */
  remaining: number;
  /** When the oldest admitted request leaves the window, freeing a place (epoch milliseconds). */
  resetAt: number;
}

/** The decision once `count` requests (this one included when admitted) are in the window. */
export function decide(allowed: boolean, count: number, limit: number, resetAt: number): RateLimitDecision {
  return { allowed, remaining: Math.max(0, limit - count), resetAt };
}
