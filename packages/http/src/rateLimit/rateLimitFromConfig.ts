import type { Config } from '@parley/platform';
import { Redis } from 'ioredis';
import { createInProcessRateLimiter } from './inProcessRateLimiter.js';
import type { TenantRateLimitOptions } from './rateLimitPlugin.js';
import { createRedisRateLimiter } from './redisRateLimiter.js';

export interface ConfiguredRateLimit {
  options: TenantRateLimitOptions;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/**
 * The tenant rate limit as configured: Redis when REDIS_URL is set, else
 * in-process; RATE_LIMIT_PER_SECOND for every tenant unless
 * RATE_LIMIT_TENANT_LIMITS names it. The Redis client fails fast (no offline
 * queue, 250 ms command timeout) so a Redis outage lets requests through
 * (the plugin fails open) instead of holding them.
 */
export function rateLimitFromConfig(
  config: Pick<Config, 'REDIS_URL' | 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_TENANT_LIMITS'>,
  limitFor?: TenantRateLimitOptions['limitFor'],
): ConfiguredRateLimit {
  const configured = config.RATE_LIMIT_TENANT_LIMITS;
  const lookup: TenantRateLimitOptions['limitFor'] = async (tenantId) =>
    (Object.hasOwn(configured, tenantId) ? configured[tenantId] : undefined) ?? (await limitFor?.(tenantId));
  const base = { defaultLimit: config.RATE_LIMIT_PER_SECOND, limitFor: lookup, windowMs: 1000 };

  if (config.REDIS_URL === undefined) {
    return { options: { ...base, limiter: createInProcessRateLimiter() }, close: async () => {} };
  }
  const redis = new Redis(config.REDIS_URL, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 250,
  });
  return {
    options: { ...base, limiter: createRedisRateLimiter({ redis }) },
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
