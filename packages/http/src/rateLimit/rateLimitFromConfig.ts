import { type Config, createRedisClient, type Logger } from '@parley/platform';
import { withLocalFallback } from './fallbackRateLimiter.js';
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
 * queue, 250 ms command timeout); while Redis is away each process limits on
 * its own (withLocalFallback) rather than holding, refusing or unlimiting
 * requests (docs/reliability.md).
 */
export function rateLimitFromConfig(
  config: Pick<Config, 'REDIS_URL' | 'RATE_LIMIT_PER_SECOND' | 'RATE_LIMIT_TENANT_LIMITS'>,
  limitFor?: TenantRateLimitOptions['limitFor'],
  logger?: Logger,
): ConfiguredRateLimit {
  const configured = config.RATE_LIMIT_TENANT_LIMITS;
  const lookup: TenantRateLimitOptions['limitFor'] = async (tenantId) =>
    (Object.hasOwn(configured, tenantId) ? configured[tenantId] : undefined) ?? (await limitFor?.(tenantId));
  const base = { defaultLimit: config.RATE_LIMIT_PER_SECOND, limitFor: lookup, windowMs: 1000 };

  if (config.REDIS_URL === undefined) {
    return { options: { ...base, limiter: createInProcessRateLimiter() }, close: async () => {} };
  }
  const redis = createRedisClient(config.REDIS_URL, {
    purpose: 'tenant rate limits',
    ...(logger === undefined ? {} : { logger }),
  });
  const limiter = withLocalFallback(createRedisRateLimiter({ redis }), createInProcessRateLimiter());
  return {
    options: { ...base, limiter },
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
