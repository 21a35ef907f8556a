import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { requireApiKey } from '../auth/requireApiKey.js';
import type { ApiFamily } from '../errors/toErrorReply.js';
import { KEYS, testApp, verifyFixedKeys } from '../testing/testApp.js';
import { createInProcessRateLimiter } from './inProcessRateLimiter.js';
import type { RateLimiter } from './rateLimiter.js';
import { tenantRateLimitPlugin } from './rateLimitPlugin.js';

// Tests that need several requests in one window use a long one, so a slow
// machine cannot cross a window boundary between them.
async function appWith(
  limiter: RateLimiter,
  limits: Record<string, number> = {},
  windowMs = 60_000,
): Promise<FastifyInstance> {
  const app = await testApp();
  await app.register(tenantRateLimitPlugin, {
    limiter,
    defaultLimit: 2,
    windowMs,
    limitFor: (tenantId) => limits[tenantId],
  });
  const auth = requireApiKey({
    verify: verifyFixedKeys,
    permission: 'recording:read',
    projectParam: null,
    allowBearer: true,
  });
  for (const family of ['platform', 'recordings', 'analytics'] as ApiFamily[]) {
    app.get(`/${family}`, { preHandler: auth, config: { apiFamily: family } }, async () => ({
      success: true,
    }));
  }
  app.get('/open', async () => ({ success: true }));
  return app;
}

const asTenantA = { 'x-api-key': KEYS.good };

describe('tenant rate limit plugin', () => {
  it('sends X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds) on counted requests', async () => {
    const app = await appWith(createInProcessRateLimiter(), {}, 1000);
    const before = Date.now();
    const first = await app.inject({ url: '/platform', headers: asTenantA });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    const reset = Number(first.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(Math.floor((before + 1000) / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + 1000) / 1000));
    const second = await app.inject({ url: '/platform', headers: asTenantA });
    expect(second.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('answers 429 with Retry-After and the body of the route family', async () => {
    const app = await appWith(createInProcessRateLimiter());
    await app.inject({ url: '/platform', headers: asTenantA });
    await app.inject({ url: '/platform', headers: asTenantA });
    const limited = await app.inject({ url: '/platform', headers: asTenantA });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    expect(limited.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(58);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Reset is an absolute Unix time; Retry-After the seconds until it.
    const untilReset = Number(limited.headers['x-ratelimit-reset']) - Date.now() / 1000;
    expect(Math.abs(untilReset - retryAfter)).toBeLessThanOrEqual(1);
    const body = limited.json();
    expect(Object.keys(body).sort()).toEqual(['error', 'retryAfterMs']);
    expect(body.error).toEqual(expect.any(String));
    expect(Number.isInteger(body.retryAfterMs)).toBe(true);
    expect(body.retryAfterMs).toBeGreaterThan(58_000);
    expect(body.retryAfterMs).toBeLessThanOrEqual(60_000);

    const recordings = await app.inject({ url: '/recordings', headers: asTenantA });
    expect(recordings.statusCode).toBe(429);
    expect(recordings.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMIT_EXCEEDED' } });
    const analytics = await app.inject({ url: '/analytics', headers: asTenantA });
    expect(analytics.json()).toMatchObject({
      success: false,
      error: { code: 'RATE_LIMIT_EXCEEDED', details: { retryAfterMs: expect.any(Number) } },
      required: '',
    });
  });

  it('counts per tenant, with the tenant limit from limitFor', async () => {
    const app = await appWith(createInProcessRateLimiter(), { tenant_b: 5 });
    for (let i = 0; i < 2; i += 1) await app.inject({ url: '/platform', headers: asTenantA });
    expect((await app.inject({ url: '/platform', headers: asTenantA })).statusCode).toBe(429);
    const other = await app.inject({ url: '/platform', headers: { 'x-api-key': KEYS.otherTenant } });
    expect(other.statusCode).toBe(200);
    expect(other.headers['x-ratelimit-remaining']).toBe('4');
  });

  it('does not count requests without a principal', async () => {
    const app = await appWith(createInProcessRateLimiter());
    for (let i = 0; i < 5; i += 1) {
      const open = await app.inject('/open');
      expect(open.statusCode).toBe(200);
      expect(open.headers['x-ratelimit-remaining']).toBeUndefined();
      expect((await app.inject('/platform')).statusCode).toBe(401);
    }
    expect(
      (await app.inject({ url: '/platform', headers: asTenantA })).headers['x-ratelimit-remaining'],
    ).toBe('1');
  });

  it('lets requests through when the limiter fails', async () => {
    const app = await appWith({ consume: () => Promise.reject(new Error('redis down')) });
    const res = await app.inject({ url: '/platform', headers: asTenantA });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
  });
});
