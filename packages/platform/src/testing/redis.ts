import { Redis } from 'ioredis';

/**
 * The Redis of a test suite: never mocked, a real server at REDIS_URL (default 127.0.0.1:6379).
 * Without one the suite is skipped loudly on a workstation (null) and fails with CI=true.
 * The caller disconnects the client it gets.
 */
export async function connectTestRedis(suite: string): Promise<{ redis: Redis; url: string } | null> {
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.ping();
    return { redis, url };
  } catch (err) {
    redis.disconnect();
    if (process.env.CI === 'true')
      throw new Error(`Redis at ${url} does not answer (CI=true): ${String(err)}`);
    console.warn(`\n!!! SKIPPING ${suite}: Redis at ${url} does not answer (${String(err)}) !!!\n`);
    return null;
  }
}
