import { describe, expect, it } from 'vitest';
import { rateLimiterContract } from '../testing/rateLimiterContract.js';
import { createInProcessRateLimiter } from './inProcessRateLimiter.js';

const shared = createInProcessRateLimiter();
rateLimiterContract('in-process', () => shared);

describe('in-process rate limiter', () => {
  it('holds at most maxKeys windows, dropping expired ones first', async () => {
    let now = 0;
    const limiter = createInProcessRateLimiter({ maxKeys: 3, now: () => now });
    await limiter.consume('short', 1, 10);
    await limiter.consume('a', 1, 1_000);
    await limiter.consume('b', 1, 1_000);
    now = 20;
    // 'short' expired: it makes room, 'a' and 'b' keep their counts.
    await limiter.consume('c', 1, 1_000);
    expect((await limiter.consume('a', 1, 1_000)).allowed).toBe(false);
    expect((await limiter.consume('b', 1, 1_000)).allowed).toBe(false);
  });

  it('drops the oldest live window when none has expired (fail open for that key only)', async () => {
    const limiter = createInProcessRateLimiter({ maxKeys: 2, now: () => 0 });
    await limiter.consume('a', 1, 1_000);
    await limiter.consume('b', 1, 1_000);
    await limiter.consume('c', 1, 1_000);
    expect((await limiter.consume('a', 1, 1_000)).allowed).toBe(true);
    expect((await limiter.consume('c', 1, 1_000)).allowed).toBe(false);
  });
});
