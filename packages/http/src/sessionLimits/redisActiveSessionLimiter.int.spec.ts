import { connectTestRedis } from '@parley/platform/testing/redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { activeSessionLimiterContract } from '../testing/activeSessionLimiterContract.js';
import { createRedisActiveSessionLimiter } from './redisActiveSessionLimiter.js';
import { sessionLimitsFromConfig } from './sessionLimitsFromConfig.js';

// Never mocked: a real Redis at REDIS_URL (connectTestRedis skips loudly without one, fails in CI).
const connected = await connectTestRedis('Redis active-session tests');
afterAll(() => connected?.redis.disconnect());

if (connected) {
  const { redis, url } = connected;
  const prefix = `parley:test:active:${process.pid}:`;
  // Four connections, as four API processes would have.
  const clients = [redis, ...Array.from({ length: 3 }, () => new Redis(url))];
  afterAll(() => {
    for (const client of clients.slice(1)) client.disconnect();
  });
  let next = 0;
  activeSessionLimiterContract('redis', () => {
    next += 1;
    return createRedisActiveSessionLimiter({ redis: clients[next % clients.length]!, prefix });
  });

  describe('redis active session limiter', () => {
    it('gives every tenant set an expiry of the window', async () => {
      await createRedisActiveSessionLimiter({ redis, prefix }).acquire('ttl', 's1', 5, 5_000);
      const ttl = await redis.pttl(`${prefix}ttl`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(5_000);
      await redis.del(`${prefix}ttl`);
    });

    it('is what sessionLimitsFromConfig builds when REDIS_URL is set', async () => {
      const configured = sessionLimitsFromConfig({
        REDIS_URL: url,
        CHAT_SESSION_MESSAGES_PER_MINUTE: 2,
        CHAT_MAX_CONCURRENT_SESSIONS: 1,
        CHAT_ACTIVE_SESSION_WINDOW_SECONDS: 5,
      });
      const { limits } = configured;
      try {
        expect(limits).toMatchObject({
          messagesPerMinute: 2,
          maxConcurrentSessions: 1,
          activeWindowMs: 5_000,
        });
        const tenant = `cfg-${process.pid}-${Date.now()}`;
        // No offline queue: commands fail until the connection is ready.
        for (let i = 0; ; i += 1) {
          const ok = await limits.activeSessions.acquire(tenant, 's1', 1, 5_000).then(
            () => true,
            () => false,
          );
          if (ok) break;
          if (i > 100) throw new Error('Redis never became ready');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect((await limits.activeSessions.acquire(tenant, 's2', 1, 5_000)).allowed).toBe(false);
        expect(await redis.zcard(`parley:active:${tenant}`)).toBe(1);
        await redis.del(`parley:active:${tenant}`);
      } finally {
        await configured.close();
      }
    });
  });
}
