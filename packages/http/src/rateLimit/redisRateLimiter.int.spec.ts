import { setTimeout as sleep } from 'node:timers/promises';
import { connectTestRedis } from '@parley/platform/testing/redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { rateLimiterContract } from '../testing/rateLimiterContract.js';
import { testApp } from '../testing/testApp.js';
import { rateLimitFromConfig } from './rateLimitFromConfig.js';
import { tenantRateLimitPlugin } from './rateLimitPlugin.js';
import { createRedisRateLimiter } from './redisRateLimiter.js';

// Never mocked: a real Redis at REDIS_URL (connectTestRedis skips loudly without one, fails in CI).
const connected = await connectTestRedis('Redis rate-limiter tests');
afterAll(() => connected?.redis.disconnect());

if (connected) {
  const { redis, url } = connected;
  const prefix = `parley:test:${process.pid}:`;
  // Four connections, as four API processes would have.
  const clients = [redis, ...Array.from({ length: 3 }, () => new Redis(url))];
  afterAll(() => {
    for (const client of clients.slice(1)) client.disconnect();
  });
  let next = 0;
  rateLimiterContract('redis', () => {
    next += 1;
    return createRedisRateLimiter({ redis: clients[next % clients.length]!, prefix });
  });

  describe('redis rate limiter', () => {
    it('gives every counter an expiry', async () => {
      await createRedisRateLimiter({ redis, prefix }).consume('ttl-check', 5, 5_000);
      const ttl = await redis.pttl(`${prefix}ttl-check`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
      await redis.del(`${prefix}ttl-check`);
    });

    it('is what rateLimitFromConfig builds when REDIS_URL is set', async () => {
      const configured = rateLimitFromConfig({
        REDIS_URL: url,
        RATE_LIMIT_PER_SECOND: 5,
        RATE_LIMIT_TENANT_LIMITS: {},
      });
      try {
        // No offline queue: until the connection is ready, consumes are this process's own.
        const warmup = `warmup:${process.pid}`;
        for (let i = 0; ; i += 1) {
          await configured.options.limiter.consume(warmup, 1_000, 1_000);
          if ((await redis.exists(`parley:rl:${warmup}`)) === 1) break;
          if (i > 100) throw new Error('Redis never became ready');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const key = `cfg:${process.pid}:${Date.now()}`;
        const decisions = await Promise.all(
          [1, 2, 3].map(() => configured.options.limiter.consume(key, 2, 1_000)),
        );
        expect(decisions.filter((d) => d.allowed)).toHaveLength(2);
        await redis.del(`parley:rl:${key}`);
      } finally {
        await configured.close();
      }
    });

    it('replaces a counter of the former fixed window instead of failing', async () => {
      await redis.set(`${prefix}old-counter`, '7');
      const decision = await createRedisRateLimiter({ redis, prefix }).consume('old-counter', 10, 2_000);
      expect(decision).toMatchObject({ allowed: true, remaining: 9 });
      expect(await redis.type(`${prefix}old-counter`)).toBe('zset');
      expect(await redis.pttl(`${prefix}old-counter`)).toBeGreaterThan(0);
      await redis.del(`${prefix}old-counter`);
    });

    it('slides: requests late in one window still count at the start of the next', async () => {
      const limiter = createRedisRateLimiter({ redis, prefix });
      const k = `slide:${Date.now()}`;
      const first = await limiter.consume(k, 5, 1_000);
      await sleep(500);
      for (let i = 0; i < 4; i += 1) expect((await limiter.consume(k, 5, 1_000)).allowed).toBe(true);
      // Past the first request's window, inside the other four's: one place only.
      await sleep(Math.max(0, first.resetAt - Date.now()) + 100);
      const after = [];
      for (let i = 0; i < 5; i += 1) after.push((await limiter.consume(k, 5, 1_000)).allowed);
      expect(after).toEqual([true, false, false, false, false]);
      await redis.del(`${prefix}${k}`);
    });
  });
}

describe('a Redis that does not answer', () => {
  it('limits each process on its own, without holding requests', async () => {
    const configured = rateLimitFromConfig({
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMIT_PER_SECOND: 1,
      RATE_LIMIT_TENANT_LIMITS: {},
    });
    const app = await testApp();
    await app.register(tenantRateLimitPlugin, configured.options);
    app.get(
      '/x',
      {
        preHandler: async (request) => {
          request.principal = { keyId: 'k', tenantId: 't', projectId: 'p', scopes: [], permissions: [] };
        },
      },
      async () => ({ success: true }),
    );
    const startedAt = Date.now();
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await app.inject('/x')).statusCode);
    expect(statuses).toEqual([200, 429, 429]);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    await configured.close();
  });
});

if (!connected) {
  describe.skip('redis rate limiter (Redis unavailable)', () => {
    it('skipped', () => {});
  });
}
