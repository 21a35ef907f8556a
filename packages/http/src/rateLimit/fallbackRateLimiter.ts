import type { RateLimiter } from './rateLimiter.js';

/**
 * The shared (Redis) limiter, or this process's own while the shared one fails: a Redis outage
 * neither refuses requests nor lifts the limit; each API process enforces it on its own (docs/
 * reliability.md: N replicas admit up to N times the limit until Redis is back). The Redis client
 * logs the outage once; a consume that falls back is not logged again.
 */
export function withLocalFallback(shared: RateLimiter, local: RateLimiter): RateLimiter {
  return {
    async consume(key, limit, windowMs) {
      try {
        return await shared.consume(key, limit, windowMs);
      } catch {
        return local.consume(key, limit, windowMs);
      }
    },
  };
}
