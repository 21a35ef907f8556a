import type { Redis } from 'ioredis';
import {
  type AdmitDecision,
  slotSetName,
  type VoiceConcurrencyLimiter,
  type VoicePool,
  type VoiceScope,
} from './concurrencyLimiter.js';

/**
 * One sorted set per tenant and pool (per pool for a global limit), member → expiry (ms). The script drops the expired, checks
 * every slot, then adds all or none: Redis runs it atomically, so any number of API processes
 * never admit more than a limit.
 * KEYS: the sets; ARGV: now, holdMs, then member and limit for each key.
 */
const ADMIT = `
local now = tonumber(ARGV[1])
local expiry = now + tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local member = ARGV[1 + 2 * i]
  local limit = tonumber(ARGV[2 + 2 * i])
  if not redis.call('ZSCORE', key, member) then
    local count = redis.call('ZCARD', key)
    if count >= limit then
      local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
      return { 0, i, count, tonumber(first[2]) - now }
    end
  end
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, expiry, ARGV[1 + 2 * i])
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', key, math.max(expiry, tonumber(last[2])))
end
return { 1, 0, 0, 0 }
`;

const COUNT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])
`;

const ADMIT_COMMAND = 'parleyVoiceAdmit';
const COUNT_COMMAND = 'parleyVoiceCount';

type Command = (...args: Array<string | number>) => Promise<unknown>;

export interface RedisVoiceConcurrencyLimiterOptions {
  redis: Redis;
  /** Key prefix (default `parley:voice:`); keys are `<prefix><pool>:<tenantId>`, `<prefix><pool>` when global. */
  prefix?: string;
  now?: () => number;
}

/** The voice limits shared by every API process (REDIS_URL set). */
export function createRedisVoiceConcurrencyLimiter(
  options: RedisVoiceConcurrencyLimiterOptions,
): VoiceConcurrencyLimiter {
  const { redis } = options;
  const prefix = options.prefix ?? 'parley:voice:';
  const now = options.now ?? Date.now;
  redis.defineCommand(ADMIT_COMMAND, { lua: ADMIT });
  redis.defineCommand(COUNT_COMMAND, { numberOfKeys: 1, lua: COUNT });
  const commands = redis as unknown as Record<string, Command>;
  const admit = (commands[ADMIT_COMMAND] as Command).bind(redis);
  const count = (commands[COUNT_COMMAND] as Command).bind(redis);
  const key = (tenantId: string, pool: VoicePool, scope?: VoiceScope) =>
    `${prefix}${slotSetName(tenantId, pool, scope)}`;

  return {
    async admit(tenantId, slots, holdMs): Promise<AdmitDecision> {
      if (slots.length === 0) return { admitted: true };
      const args: Array<string | number> = [
        slots.length,
        ...slots.map((s) => key(tenantId, s.pool, s.scope)),
      ];
      args.push(now(), holdMs);
      for (const slot of slots) args.push(slot.member, slot.limit);
      const [ok, index, active, retryAfterMs] = (await admit(...args)) as [number, number, number, number];
      if (ok === 1) return { admitted: true };
      const refused = slots[index - 1];
      return {
        admitted: false,
        pool: refused?.pool ?? 'calls',
        scope: refused?.scope ?? 'tenant',
        active,
        retryAfterMs: Math.max(0, retryAfterMs),
      };
    },
    async release(tenantId, pool, member, scope) {
      await redis.zrem(key(tenantId, pool, scope), member);
    },
    async active(tenantId, pool, scope) {
      return Number(await count(key(tenantId, pool, scope), now()));
    },
  };
}
