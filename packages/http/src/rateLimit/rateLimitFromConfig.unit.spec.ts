import { describe, expect, it } from 'vitest';
import { rateLimitFromConfig } from './rateLimitFromConfig.js';

describe('rateLimitFromConfig', () => {
  it('is in-process without REDIS_URL, with configured tenant limits before the lookup and the default last', async () => {
    const { options, close } = rateLimitFromConfig(
      { REDIS_URL: undefined, RATE_LIMIT_PER_SECOND: 7, RATE_LIMIT_TENANT_LIMITS: { t_config: 3 } },
      (tenantId) => (tenantId === 't_lookup' || tenantId === 't_config' ? 50 : undefined),
    );
    expect(options.defaultLimit).toBe(7);
    expect(options.windowMs).toBe(1000);
    expect(await options.limitFor?.('t_config')).toBe(3);
    expect(await options.limitFor?.('t_lookup')).toBe(50);
    expect(await options.limitFor?.('t_other')).toBeUndefined();
    expect(await options.limitFor?.('__proto__')).toBeUndefined();
    expect((await options.limiter.consume('k', 1, 1000)).allowed).toBe(true);
    await close();
  });
});
