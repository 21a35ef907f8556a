import { connectTestRedis } from '@parley/platform/testing/redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { concurrencyLimiterContract } from '../testing/concurrencyLimiterContract.js';
import { voiceLimiterFromConfig } from './limiterFromConfig.js';
import { createRedisVoiceConcurrencyLimiter } from './redisConcurrencyLimiter.js';

// Never mocked: a real Redis at REDIS_URL (connectTestRedis skips loudly without one, fails in CI).
const connected = await connectTestRedis('Redis voice concurrency tests');
afterAll(() => connected?.redis.disconnect());

if (connected) {
  const { redis, url } = connected;
  const prefix = `parley:test:voice:${process.pid}:`;
  // Four connections, as four API processes would have.
  const clients = [redis, ...Array.from({ length: 3 }, () => new Redis(url))];
  afterAll(() => {
    for (const client of clients.slice(1)) client.disconnect();
  });
  let next = 0;
  concurrencyLimiterContract('redis', (now) => {
    next += 1;
    return createRedisVoiceConcurrencyLimiter({
      redis: clients[next % clients.length] as Redis,
      prefix,
      ...(now === undefined ? {} : { now }),
    });
  });

  describe('redis voice concurrency limiter', () => {
    it('keeps its sets in Redis with an expiry no earlier than the latest hold', async () => {
      const limiter = createRedisVoiceConcurrencyLimiter({ redis, prefix });
      await limiter.admit('ttl', [{ pool: 'rooms', member: 'a', limit: 5 }], 5_000);
      expect(await redis.zscore(`${prefix}rooms:ttl`, 'a')).not.toBeNull();
      const ttl = await redis.pttl(`${prefix}rooms:ttl`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
      await redis.del(`${prefix}rooms:ttl`);
    });

    it('is what voiceLimiterFromConfig builds when REDIS_URL is set, else in-process', async () => {
      const configured = voiceLimiterFromConfig({ REDIS_URL: url });
      const t = `cfg-${process.pid}-${Date.now()}`;
      try {
        // No offline queue (fail fast while Redis is away): commands fail until the connection is ready.
        for (let i = 0; ; i += 1) {
          const admitted = await configured.limiter
            .admit(t, [{ pool: 'calls', member: 'a', limit: 1 }], 5_000)
            .then(
              () => true,
              () => false,
            );
          if (admitted) break;
          if (i > 100) throw new Error('Redis never became ready');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await redis.zcard(`parley:voice:calls:${t}`)).toBe(1);
        await configured.limiter.release(t, 'calls', 'a');
        expect(await redis.exists(`parley:voice:calls:${t}`)).toBe(0);
      } finally {
        await configured.close();
      }
      const local = voiceLimiterFromConfig({});
      await local.limiter.admit(t, [{ pool: 'calls', member: 'a', limit: 1 }], 5_000);
      expect(await redis.exists(`parley:voice:calls:${t}`)).toBe(0);
      await local.close();
    });
  });
}
