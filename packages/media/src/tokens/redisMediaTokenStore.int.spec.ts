import { connectTestRedis } from '@parley/platform/testing/redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { mediaTokenStoreContract } from '../testing/mediaTokenStoreContract.js';
import { hashMediaToken } from './mediaTokenStore.js';
import { createRedisMediaTokenStore } from './redisMediaTokenStore.js';

// Never mocked: a real Redis at REDIS_URL (connectTestRedis skips loudly without one, fails in CI).
const connected = await connectTestRedis('Redis media-token tests');
afterAll(() => connected?.redis.disconnect());

if (connected) {
  const { redis, url } = connected;
  const prefix = `parley:test:${process.pid}:media-token:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });
  // A second connection, as a second API process would have: a token issued by one verifies on the other.
  const other = new Redis(url);
  afterAll(() => other.disconnect());

  mediaTokenStoreContract('redis', () => {
    let offset = 0;
    const now = () => Date.now() + offset;
    return { store: createRedisMediaTokenStore(redis, { prefix, now }), advance: (ms) => (offset += ms) };
  });

  describe('redis media token store', () => {
    const ids = { projectId: 'p_redis', recordingId: 'rec_redis', objectIndex: 0 };

    it('stores only the SHA-256 of the token, with the TTL as the key expiry', async () => {
      const store = createRedisMediaTokenStore(redis, { prefix });
      const { token } = await store.issue(ids, 120);
      const key = `${prefix}${hashMediaToken(token)}`;
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(110);
      expect(ttl).toBeLessThanOrEqual(120);
      const stored = await redis.get(key);
      expect(stored).not.toBeNull();
      expect(stored).not.toContain(token);
      const allKeys = await redis.keys(`${prefix}*`);
      expect(allKeys.some((k) => k.includes(token))).toBe(false);
    });

    it('a token issued through one connection verifies through another', async () => {
      const { token } = await createRedisMediaTokenStore(redis, { prefix }).issue(ids, 60);
      expect(await createRedisMediaTokenStore(other, { prefix }).verify(token, ids)).not.toBeNull();
    });

    it('Redis forgets the token on its own after the TTL', async () => {
      const store = createRedisMediaTokenStore(redis, { prefix });
      const { token } = await store.issue(ids, 1);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await redis.exists(`${prefix}${hashMediaToken(token)}`)).toBe(0);
      expect(await store.verify(token, ids)).toBeNull();
    });

    it('treats an unreadable stored value as unknown', async () => {
      const store = createRedisMediaTokenStore(redis, { prefix });
      const { token } = await store.issue(ids, 60);
      await redis.set(`${prefix}${hashMediaToken(token)}`, 'not json', 'EX', 60);
      expect(await store.verify(token, ids)).toBeNull();
    });

    it('close leaves the caller’s Redis client open', async () => {
      await createRedisMediaTokenStore(redis, { prefix }).close();
      expect(await redis.ping()).toBe('PONG');
    });
  });
}
