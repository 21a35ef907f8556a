import type { Redis } from 'ioredis';
import { decide, type RateLimiter } from './rateLimiter.js';

/**
 * One atomic step per consume: count, open the window on the first request,
 * and return the window's remaining time. A key that somehow lost its expiry
 * gets one again, so no counter can live forever.
 */
const CONSUME = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return { count, ttl }
`;

const COMMAND = 'parleyRateLimitConsume';

export interface RedisRateLimiterOptions {
  redis: Redis;
  /** Prefix of the counter keys (default `parley:rl:`). */
  prefix?: string;
  now?: () => number;
}

/**
 * The rate limiter shared by all API processes: a Lua script (INCR, then
 * PEXPIRE on the first hit) so concurrent consumes from any process count
 * exactly. The window is Redis's (its TTL); `resetAt` is this process's clock
 * plus that TTL.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { redis } = options;
  const prefix = options.prefix ?? 'parley:rl:';
  const now = options.now ?? Date.now;
  // A defined command runs by EVALSHA (the script is sent once, not per request),
  // falling back to EVAL after a Redis restart flushed the script cache.
  redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: CONSUME });
  const run = (
    redis as unknown as Record<typeof COMMAND, (key: string, windowMs: string) => Promise<unknown>>
  )[COMMAND].bind(redis);

  return {
    async consume(key, limit, windowMs) {
      const reply = (await run(prefix + key, String(windowMs))) as [number, number];
      const [count, ttl] = reply;
      return decide(count, limit, now() + ttl);
    },
  };
}
