import {
  canStartPrivate,
  type PrivateServer,
  startPrivateRedis,
} from '@parley/platform/testing/privateServer';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../testing/testApp.js';
import { type ConfiguredRateLimit, rateLimitFromConfig } from './rateLimitFromConfig.js';
import { tenantRateLimitPlugin } from './rateLimitPlugin.js';

// A private Redis: the test stops it, which it must never do to the machine's shared one.
let server: PrivateServer;
let probe: Redis;
let configured: ConfiguredRateLimit;
let app: FastifyInstance;

const available = canStartPrivate('redis', 'the rate limit while Redis is down');

beforeAll(async () => {
  if (!available) return;
  server = await startPrivateRedis();
  probe = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  configured = rateLimitFromConfig({
    REDIS_URL: server.url,
    RATE_LIMIT_PER_SECOND: 3,
    RATE_LIMIT_TENANT_LIMITS: {},
  });
  app = await testApp();
  await app.register(tenantRateLimitPlugin, { ...configured.options, windowMs: 60_000 });
  app.get(
    '/x/:tenant',
    {
      preHandler: async (request) => {
        const tenantId = (request.params as { tenant: string }).tenant;
        request.principal = { keyId: 'k', tenantId, projectId: 'p', scopes: [], permissions: [] };
      },
    },
    async () => ({ success: true }),
  );
});
afterAll(async () => {
  await app?.close();
  await configured?.close();
  probe?.disconnect();
  await server?.destroy();
});

const statuses = async (tenant: string, n: number): Promise<number[]> => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await app.inject(`/x/${tenant}`)).statusCode);
  return out;
};

/** True once the tenant's counter is in Redis: the shared limiter, not the process's own, counted. */
const countedInRedis = async (tenant: string) => (await probe.exists(`parley:rl:tenant:${tenant}`)) === 1;

async function untilShared(tenant: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    await app.inject(`/x/${tenant}`);
    if (await countedInRedis(tenant).catch(() => false)) return Date.now() - started;
    if (Date.now() - started > 10_000) throw new Error('the limiter never went back to Redis');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!available)('the tenant rate limit while Redis is down', () => {
  it('is enforced by each process on its own, never lifted and never a 5xx, and moves back to Redis', async () => {
    await probe.connect();
    await untilShared('warmup');
    expect(await statuses('up', 4)).toEqual([200, 200, 200, 429]);
    expect(await countedInRedis('up')).toBe(true);

    await server.stop();
    const started = Date.now();
    expect(await statuses('down', 5)).toEqual([200, 200, 200, 429, 429]);
    // Fails fast: no command waits for a server that is not there.
    expect(Date.now() - started).toBeLessThan(2_000);

    await server.start();
    expect(await untilShared('back')).toBeLessThan(3_000);
  });
});
