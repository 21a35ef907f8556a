import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { decide, type RateLimiter } from './rateLimiter.js';

/**
 * One atomic step per consume, on Redis's clock (TIME, so every API process shares one): drop the
 * admitted requests that left the window, admit this one (ZADD, scored in milliseconds) if fewer
 * than the limit remain, and answer how long until the oldest leaves. Any other type at the key (a
 * counter of the former fixed window) is replaced. Every write renews the key's expiry, so no log
 * outlives its window.
 */
const CONSUME = `
local key = KEYS[1]
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local kind = redis.call('TYPE', key)['ok']
if kind ~= 'zset' and kind ~= 'none' then redis.call('DEL', key) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, math.ceil(window))
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local wait = window
if oldest[2] then wait = tonumber(oldest[2]) + window - now end
return { allowed, count, math.ceil(wait) }
`;

const COMMAND = 'parleySlidingWindowConsume';

export interface RedisRateLimiterOptions {
  redis: Redis;
  /** Prefix of the log keys (default `parley:rl:`). */
  prefix?: string;
  now?: () => number;
}

/**
 * The rate limiter shared by all API processes: a sorted set per key holding the requests admitted
 * in the window, maintained by one Lua script so concurrent consumes from any process count exactly.
 * `resetAt` is this process's clock plus the wait Redis computed on its own.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { redis } = options;
  const prefix = options.prefix ?? 'parley:rl:';
  const now = options.now ?? Date.now;
  // Members must be unique across processes: a random prefix per limiter and a counter.
  const member = randomBytes(6).toString('base64url');
  let sequence = 0;
  // A defined command runs by EVALSHA (the script is sent once, not per request),
  // falling back to EVAL after a Redis restart flushed the script cache.
  redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: CONSUME });
  const run = (
    redis as unknown as Record<
      typeof COMMAND,
      (key: string, windowMs: string, limit: string, member: string) => Promise<[number, number, number]>
    >
  )[COMMAND].bind(redis);

  return {
    async consume(key, limit, windowMs) {
      sequence += 1;
      const [allowed, count, wait] = await run(
        prefix + key,
        String(windowMs),
        String(limit),
        `${member}${sequence}`,
      );
      return decide(allowed === 1, count, limit, now() + wait);
    },
  };
}
