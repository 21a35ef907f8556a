import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { RateLimiter } from '../rateLimit/rateLimiter.js';

/**
 * The behaviour every RateLimiter shares, run against each implementation
 * (in-process and Redis) with the real clock. Keys are fresh per test.
 */
export function rateLimiterContract(name: string, limiter: () => RateLimiter): void {
  const key = () => `test:${randomUUID()}`;

  describe(`RateLimiter contract: ${name}`, () => {
    it('allows exactly `limit` in a window, counting remaining down, then refuses', async () => {
      const k = key();
      const startedAt = Date.now();
      const decisions = [];
      for (let i = 0; i < 5; i += 1) decisions.push(await limiter().consume(k, 3, 10_000));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
      const first = decisions[0]!.resetAt;
      expect(first).toBeGreaterThanOrEqual(startedAt + 9_900);
      expect(first).toBeLessThanOrEqual(Date.now() + 10_000 + 50);
      for (const d of decisions) expect(Math.abs(d.resetAt - first)).toBeLessThanOrEqual(50);
    });

    it('opens a new window once the old one resets', async () => {
      const k = key();
      const l = limiter();
      await l.consume(k, 2, 250);
      await l.consume(k, 2, 250);
      const refused = await l.consume(k, 2, 250);
      expect(refused.allowed).toBe(false);
      await sleep(Math.max(0, refused.resetAt - Date.now()) + 60);
      const next = await l.consume(k, 2, 250);
      expect(next).toMatchObject({ allowed: true, remaining: 1 });
      expect(next.resetAt).toBeGreaterThan(refused.resetAt);
    });

    it('keeps keys apart', async () => {
      const [a, b] = [key(), key()];
      const l = limiter();
      for (let i = 0; i < 3; i += 1) await l.consume(a, 2, 10_000);
      expect((await l.consume(a, 2, 10_000)).allowed).toBe(false);
      expect(await l.consume(b, 2, 10_000)).toMatchObject({ allowed: true, remaining: 1 });
    });

    it('allows exactly `limit` of N parallel consumes', async () => {
      const k = key();
      // A limiter per consume: for Redis, consumes from several connections at once.
      const decisions = await Promise.all(
        Array.from({ length: 200 }, () => limiter().consume(k, 50, 10_000)),
      );
      const allowed = decisions.filter((d) => d.allowed);
      expect(allowed).toHaveLength(50);
      expect(allowed.map((d) => d.remaining).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
      for (const d of decisions.filter((d) => !d.allowed)) expect(d.remaining).toBe(0);
    });
  });
}
