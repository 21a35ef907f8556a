import fc from 'fast-check';
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

  it('admits no more than `limit` in any window of `windowMs`, however requests are spaced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 1_000 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 120 }),
        async (limit, windowMs, gaps) => {
          let now = 1_000_000;
          const limiter = createInProcessRateLimiter({ now: () => now });
          const admitted: number[] = [];
          for (const gap of gaps) {
            now += gap;
            const decision = await limiter.consume('k', limit, windowMs);
            const live = admitted.filter((t) => t > now - windowMs).length;
            // Admitted exactly when the window had room: a sliding window refuses no one wrongly.
            expect(decision.allowed).toBe(live < limit);
            if (decision.allowed) admitted.push(now);
            expect(decision.remaining).toBe(Math.max(0, limit - live - (decision.allowed ? 1 : 0)));
          }
          // Any interval [t, t + windowMs) starting at an admitted request holds at most `limit`.
          for (const start of admitted) {
            expect(admitted.filter((t) => t >= start && t < start + windowMs).length).toBeLessThanOrEqual(
              limit,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lets no 2x burst through at the edge of a window', async () => {
    let now = 0;
    const limiter = createInProcessRateLimiter({ now: () => now });
    await limiter.consume('k', 5, 1_000);
    now = 990;
    for (let i = 0; i < 4; i += 1) expect((await limiter.consume('k', 5, 1_000)).allowed).toBe(true);
    now = 1_010;
    // A fixed window reset at 1,000 would admit 5 more here: 9 within 20 ms.
    const after = [];
    for (let i = 0; i < 5; i += 1) after.push((await limiter.consume('k', 5, 1_000)).allowed);
    expect(after).toEqual([true, false, false, false, false]);
    expect((await limiter.consume('k', 5, 1_000)).resetAt).toBe(1_990);
  });
});
