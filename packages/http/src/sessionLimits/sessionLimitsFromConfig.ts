import { type Config, createRedisClient, type Logger } from '@parley/platform';
import { withLocalFallback } from '../rateLimit/fallbackRateLimiter.js';
import { createInProcessRateLimiter } from '../rateLimit/inProcessRateLimiter.js';
import type { RateLimiter } from '../rateLimit/rateLimiter.js';
import { createRedisRateLimiter } from '../rateLimit/redisRateLimiter.js';
import type { ActiveSessionLimiter } from './activeSessionLimiter.js';
import { createInProcessActiveSessionLimiter } from './inProcessActiveSessionLimiter.js';
import { createRedisActiveSessionLimiter } from './redisActiveSessionLimiter.js';

/** The session limits of spec 000 §8 the conversation endpoints enforce. */
export interface SessionLimits {
  /** Per-session message rate: `messagesPerMinute` per session per minute. */
  messageRate: RateLimiter;
  messagesPerMinute: number;
  /** Per-tenant concurrent (active) sessions. */
  activeSessions: ActiveSessionLimiter;
  maxConcurrentSessions: number;
  /** A session stops counting as active this long after its latest message. */
  activeWindowMs: number;
}

export interface ConfiguredSessionLimits {
  limits: SessionLimits;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

type LimitsConfig = Pick<
  Config,
  | 'REDIS_URL'
  | 'CHAT_SESSION_MESSAGES_PER_MINUTE'
  | 'CHAT_MAX_CONCURRENT_SESSIONS'
  | 'CHAT_ACTIVE_SESSION_WINDOW_SECONDS'
>;

/**
 * The session limits as configured: Redis when REDIS_URL is set (shared by all
 * API processes), else in-process. As for the tenant rate limit, the Redis
 * client fails fast; while Redis is away the message rate is limited per
 * process and a new session is admitted without the concurrency count
 * (sessionGate fails open; docs/reliability.md says why).
 */
export function sessionLimitsFromConfig(config: LimitsConfig, logger?: Logger): ConfiguredSessionLimits {
  const base = {
    messagesPerMinute: config.CHAT_SESSION_MESSAGES_PER_MINUTE,
    maxConcurrentSessions: config.CHAT_MAX_CONCURRENT_SESSIONS,
    activeWindowMs: config.CHAT_ACTIVE_SESSION_WINDOW_SECONDS * 1000,
  };
  if (config.REDIS_URL === undefined) {
    return {
      limits: {
        ...base,
        messageRate: createInProcessRateLimiter(),
        activeSessions: createInProcessActiveSessionLimiter(),
      },
      close: async () => {},
    };
  }
  const redis = createRedisClient(config.REDIS_URL, {
    purpose: 'session limits',
    ...(logger === undefined ? {} : { logger }),
  });
  return {
    limits: {
      ...base,
      messageRate: withLocalFallback(
        createRedisRateLimiter({ redis, prefix: 'parley:session-rl:' }),
        createInProcessRateLimiter(),
      ),
      activeSessions: createRedisActiveSessionLimiter({ redis }),
    },
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
