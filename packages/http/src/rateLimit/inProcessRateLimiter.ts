import { decide, type RateLimiter } from './rateLimiter.js';

export interface InProcessRateLimiterOptions {
  /** Most keys held at once (default 10,000); memory stays bounded whatever the key space. */
  maxKeys?: number;
  now?: () => number;
}

interface Window {
  count: number;
  resetAt: number;
}

/**
 * The rate limiter of a single process (REDIS_URL unset), with the Redis
 * implementation's semantics. When `maxKeys` windows are live, expired ones
 * are swept; if none has expired the oldest window is dropped, which can only
 * let that key through early (fail open), never block a caller wrongly.
 */
export function createInProcessRateLimiter(options: InProcessRateLimiterOptions = {}): RateLimiter {
  const maxKeys = options.maxKeys ?? 10_000;
  const now = options.now ?? Date.now;
  const windows = new Map<string, Window>();

  function makeRoom(at: number): void {
    for (const [key, window] of windows) if (window.resetAt <= at) windows.delete(key);
    while (windows.size >= maxKeys) {
      const oldest = windows.keys().next();
      if (oldest.done) break;
      windows.delete(oldest.value);
    }
  }

  return {
    async consume(key, limit, windowMs) {
      const at = now();
      let window = windows.get(key);
      if (window === undefined || window.resetAt <= at) {
        windows.delete(key);
        if (windows.size >= maxKeys) makeRoom(at);
        window = { count: 0, resetAt: at + windowMs };
        // Re-inserted so Map order stays oldest-window-first for eviction.
        windows.set(key, window);
      }
      window.count += 1;
      return decide(window.count, limit, window.resetAt);
    },
  };
}
