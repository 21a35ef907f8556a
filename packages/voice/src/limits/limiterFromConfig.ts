import { Redis } from 'ioredis';
import type { VoiceConcurrencyLimiter } from './concurrencyLimiter.js';
import { createInProcessVoiceConcurrencyLimiter } from './inProcessConcurrencyLimiter.js';
import { createRedisVoiceConcurrencyLimiter } from './redisConcurrencyLimiter.js';

/**
 * The voice limits as configured: in Redis when REDIS_URL is set (shared by every API process, so
 * limits hold across replicas), else in this process. The Redis client fails fast: a voice token
 * or call is refused with 5xx rather than admitted past the limit.
 */
export function voiceLimiterFromConfig(config: { REDIS_URL?: string | undefined }): {
  limiter: VoiceConcurrencyLimiter;
  close(): Promise<void>;
} {
  if (config.REDIS_URL === undefined) {
    return { limiter: createInProcessVoiceConcurrencyLimiter(), close: async () => {} };
  }
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
  return {
    limiter: createRedisVoiceConcurrencyLimiter({ redis }),
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
