import type { Redis } from 'ioredis';
import type { ActiveSessionDecision, ActiveSessionLimiter } from './activeSessionLimiter.js';

/**
 * One sorted set per tenant (member → last activity, ms): drop the expired,
 * then admit or refuse, atomically, so parallel first messages from any
 * number of API processes never admit more than `limit`.
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local present = redis.call('ZSCORE', KEYS[1], ARGV[4])
local count = redis.call('ZCARD', KEYS[1])
if present or count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  if present then return { 1, count, 0 } end
  return { 1, count + 1, 0 }
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { 0, count, tonumber(oldest[2]) + window - now }
`;

const RENAME = `
redis.call('ZREM', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;

const ACQUIRE_COMMAND = 'parleyActiveSessionAcquire';
const RENAME_COMMAND = 'parleyActiveSessionRename';

type Command = (key: string, ...args: string[]) => Promise<unknown>;

export interface RedisActiveSessionLimiterOptions {
  redis: Redis;
  /** Prefix of the per-tenant keys (default `parley:active:`). */
  prefix?: string;
  now?: () => number;
}

/** The concurrent sessions limit shared by all API processes (REDIS_URL set). */
export function createRedisActiveSessionLimiter(
  options: RedisActiveSessionLimiterOptions,
): ActiveSessionLimiter {
  const { redis } = options;
  const prefix = options.prefix ?? 'parley:active:';
  const now = options.now ?? Date.now;
  redis.defineCommand(ACQUIRE_COMMAND, { numberOfKeys: 1, lua: ACQUIRE });
  redis.defineCommand(RENAME_COMMAND, { numberOfKeys: 1, lua: RENAME });
  const commands = redis as unknown as Record<string, Command>;
  const acquire = (commands[ACQUIRE_COMMAND] as Command).bind(redis);
  const rename = (commands[RENAME_COMMAND] as Command).bind(redis);

  return {
    async acquire(tenantId, member, limit, windowMs): Promise<ActiveSessionDecision> {
      const reply = (await acquire(
        prefix + tenantId,
        String(now()),
        String(windowMs),
        String(limit),
        member,
      )) as [number, number, number];
      const [allowed, active, retryAfterMs] = reply;
      return { allowed: allowed === 1, active, retryAfterMs: Math.max(0, retryAfterMs) };
    },
    async rename(tenantId, from, to, windowMs) {
      await rename(prefix + tenantId, String(now()), String(windowMs), from, to);
    },
    async release(tenantId, member) {
      await redis.zrem(prefix + tenantId, member);
    },
  };
}
