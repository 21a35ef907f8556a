import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ActiveSessionLimiter } from '../sessionLimits/activeSessionLimiter.js';

/**
 * The behaviour every ActiveSessionLimiter shares, run against each
 * implementation with the real clock. Tenants are fresh per test.
 */
export function activeSessionLimiterContract(name: string, limiter: () => ActiveSessionLimiter): void {
  const tenant = () => `tenant_${randomUUID()}`;

  describe(`ActiveSessionLimiter contract: ${name}`, () => {
    it('admits `limit` sessions, refreshes a known one without counting it twice, refuses a new one', async () => {
      const t = tenant();
      const l = limiter();
      expect(await l.acquire(t, 's1', 2, 10_000)).toEqual({ allowed: true, active: 1, retryAfterMs: 0 });
      expect(await l.acquire(t, 's2', 2, 10_000)).toEqual({ allowed: true, active: 2, retryAfterMs: 0 });
      expect(await l.acquire(t, 's1', 2, 10_000)).toEqual({ allowed: true, active: 2, retryAfterMs: 0 });
      const refused = await l.acquire(t, 's3', 2, 10_000);
      expect(refused).toMatchObject({ allowed: false, active: 2 });
      expect(refused.retryAfterMs).toBeGreaterThan(9_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
    });

    it('frees a place on release, and renames a reservation to its session id', async () => {
      const t = tenant();
      const l = limiter();
      await l.acquire(t, 'new:1', 2, 10_000);
      await l.rename(t, 'new:1', 'sess_a', 10_000);
      await l.acquire(t, 'sess_b', 2, 10_000);
      expect((await l.acquire(t, 'sess_a', 2, 10_000)).allowed).toBe(true);
      expect((await l.acquire(t, 'new:2', 2, 10_000)).allowed).toBe(false);
      await l.release(t, 'sess_b');
      expect(await l.acquire(t, 'new:2', 2, 10_000)).toMatchObject({ allowed: true, active: 2 });
    });

    it('stops counting a session once the window passes without activity', async () => {
      const t = tenant();
      const l = limiter();
      await l.acquire(t, 'old', 1, 200);
      const refused = await l.acquire(t, 'new', 1, 200);
      expect(refused.allowed).toBe(false);
      await sleep(refused.retryAfterMs + 50);
      expect(await l.acquire(t, 'new', 1, 200)).toMatchObject({ allowed: true, active: 1 });
    });

    it('keeps tenants apart', async () => {
      const [a, b] = [tenant(), tenant()];
      const l = limiter();
      await l.acquire(a, 's1', 1, 10_000);
      expect((await l.acquire(a, 's2', 1, 10_000)).allowed).toBe(false);
      expect((await l.acquire(b, 's2', 1, 10_000)).allowed).toBe(true);
    });

    it('admits exactly `limit` of N parallel new sessions', async () => {
      const t = tenant();
      const decisions = await Promise.all(
        Array.from({ length: 120 }, (_, i) => limiter().acquire(t, `new:${i}`, 25, 10_000)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
    });
  });
}
