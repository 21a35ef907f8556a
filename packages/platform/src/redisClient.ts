import { Redis } from 'ioredis';
import type { Logger } from './logger.js';

export interface RedisClientOptions {
  /** What the connection is for, in logs (`rate limits`, `media tokens`, …). */
  purpose: string;
  logger?: Pick<Logger, 'warn' | 'info'>;
  /** How long a command may take before it fails (default 250 ms: a limiter must not hold requests). */
  commandTimeoutMs?: number;
}

/**
 * A Redis client for a feature that must keep answering while Redis is away (docs/reliability.md):
 * no offline queue and one retry, so a command fails at once instead of waiting for the server; a
 * command timeout; reconnection forever, every second at most, so the feature is back within a second
 * of Redis. Connection errors are logged once per outage (ioredis otherwise prints every reconnect
 * attempt to stderr), and the return once. The features decide what a failed command means.
 */
export function createRedisClient(url: string, options: RedisClientOptions): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? 250,
    connectTimeout: 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    options.logger?.warn({ err: { message: err.message }, purpose: options.purpose }, 'Redis unavailable');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    options.logger?.info({ purpose: options.purpose }, 'Redis is back');
  });
  return redis;
}
