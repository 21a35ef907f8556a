import { createRedisClient, type Logger } from '@parley/platform';
import type { VoiceConcurrencyLimiter } from './concurrencyLimiter.js';
import { createInProcessVoiceConcurrencyLimiter } from './inProcessConcurrencyLimiter.js';
import { createRedisVoiceConcurrencyLimiter } from './redisConcurrencyLimiter.js';

/**
 * The voice limits as configured: in Redis when REDIS_URL is set (shared by every API process, so
 * limits hold across replicas), else in this process. The Redis client fails fast: while Redis is
 * away a voice token or call is refused with 503 SERVICE_UNAVAILABLE (and Retry-After) rather than
 * admitted past the limit (docs/reliability.md says why).
 */
export function voiceLimiterFromConfig(
  config: { REDIS_URL?: string | undefined },
  logger?: Logger,
): {
  limiter: VoiceConcurrencyLimiter;
  close(): Promise<void>;
} {
  if (config.REDIS_URL === undefined) {
    return { limiter: createInProcessVoiceConcurrencyLimiter(), close: async () => {} };
  }
  const redis = createRedisClient(config.REDIS_URL, {
    purpose: 'voice limits',
    commandTimeoutMs: 1_000,
    ...(logger === undefined ? {} : { logger }),
  });
  return {
    limiter: createRedisVoiceConcurrencyLimiter({ redis }),
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
