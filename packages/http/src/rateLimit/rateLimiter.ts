/**
 * A fixed-window counter per key. The window of a key opens at its first
 * request and lasts `windowMs`; every consume in it counts, allowed or not.
 * Implementations: createInProcessRateLimiter (one process) and
 * createRedisRateLimiter (shared by every API process).
 */
export interface RateLimiter {
  consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}

export interface RateLimitDecision {
  /** True while this consume is within `limit` for the current window. */
  allowed: boolean;
  /** Requests left in the window after this one (never negative). */
  remaining: number;
  /** When the window resets (epoch milliseconds). */
  resetAt: number;
}

export function decide(count: number, limit: number, resetAt: number): RateLimitDecision {
  return { allowed: count <= limit, remaining: Math.max(0, limit - count), resetAt };
}
