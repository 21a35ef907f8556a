import { describe, expect, it } from 'vitest';
import type { VoiceConcurrencyLimiter } from '../limits/concurrencyLimiter.js';

let n = 0;
const tenant = () => {
  n += 1;
  return `t${process.pid}-${Date.now()}-${n}`;
};

/** What every VoiceConcurrencyLimiter does; `make` may return a limiter over a new connection each time. */
export function concurrencyLimiterContract(
  name: string,
  make: (now?: () => number) => VoiceConcurrencyLimiter,
): void {
  describe(`${name} voice concurrency limiter`, () => {
    it('admits up to the limit per tenant and pool, renews a member, refuses the next with a retry delay', async () => {
      const limiter = make();
      const t = tenant();
      for (const member of ['a', 'b', 'a']) {
        expect(await limiter.admit(t, [{ pool: 'rooms', member, limit: 2 }], 60_000)).toEqual({
          admitted: true,
        });
      }
      const refused = await limiter.admit(t, [{ pool: 'rooms', member: 'c', limit: 2 }], 60_000);
      expect(refused).toMatchObject({ admitted: false, pool: 'rooms', scope: 'tenant', active: 2 });
      expect(refused.admitted === false && refused.retryAfterMs).toBeGreaterThan(50_000);
      expect(await limiter.admit(t, [{ pool: 'calls', member: 'c', limit: 2 }], 60_000)).toEqual({
        admitted: true,
      });
      expect(await limiter.admit(tenant(), [{ pool: 'rooms', member: 'c', limit: 2 }], 60_000)).toEqual({
        admitted: true,
      });
      expect(await limiter.active(t, 'rooms')).toBe(2);
    });

    it('counts a global slot across every tenant, beside each tenant’s own', async () => {
      const limiter = make();
      const pool = `rooms` as const;
      const before = await limiter.active(tenant(), pool, 'global');
      const [a, b] = [tenant(), tenant()];
      const slots = (member: string) => [
        { pool, scope: 'global' as const, member, limit: before + 2 },
        { pool, member, limit: 5 },
      ];
      expect(await limiter.admit(a, slots(`${a}-1`), 60_000)).toEqual({ admitted: true });
      expect(await limiter.admit(b, slots(`${b}-1`), 60_000)).toEqual({ admitted: true });
      // The global limit is reached by two tenants together; each tenant holds one of its own.
      expect(await limiter.admit(b, slots(`${b}-2`), 60_000)).toMatchObject({
        admitted: false,
        pool,
        scope: 'global',
        active: before + 2,
      });
      expect([await limiter.active(a, pool), await limiter.active(b, pool)]).toEqual([1, 1]);
      await limiter.release(a, pool, `${a}-1`, 'global');
      await limiter.release(a, pool, `${a}-1`);
      expect(await limiter.admit(b, slots(`${b}-2`), 60_000)).toEqual({ admitted: true });
      await limiter.release(b, pool, `${b}-1`, 'global');
      await limiter.release(b, pool, `${b}-2`, 'global');
      expect(await limiter.active(a, pool, 'global')).toBe(before);
    });

    it('takes every slot or none', async () => {
      const limiter = make();
      const t = tenant();
      await limiter.admit(t, [{ pool: 'calls', member: 'x', limit: 1 }], 60_000);
      const both = [
        { pool: 'rooms' as const, member: 'y', limit: 5 },
        { pool: 'calls' as const, member: 'y', limit: 1 },
      ];
      expect(await limiter.admit(t, both, 60_000)).toMatchObject({
        admitted: false,
        pool: 'calls',
        active: 1,
      });
      expect(await limiter.active(t, 'rooms')).toBe(0);
      await limiter.release(t, 'calls', 'x');
      expect(await limiter.admit(t, both, 60_000)).toEqual({ admitted: true });
      expect([await limiter.active(t, 'rooms'), await limiter.active(t, 'calls')]).toEqual([1, 1]);
    });

    it('frees a slot when it is released or its hold has passed', async () => {
      let clock = Date.now();
      const limiter = make(() => clock);
      const t = tenant();
      await limiter.admit(t, [{ pool: 'calls', member: 'a', limit: 1 }], 1_000);
      expect((await limiter.admit(t, [{ pool: 'calls', member: 'b', limit: 1 }], 1_000)).admitted).toBe(
        false,
      );
      clock += 1_001;
      expect((await limiter.admit(t, [{ pool: 'calls', member: 'b', limit: 1 }], 1_000)).admitted).toBe(true);
      await limiter.release(t, 'calls', 'b');
      await limiter.release(t, 'calls', 'never-held');
      expect(await limiter.active(t, 'calls')).toBe(0);
    });

    it('never admits more than the limit when many admits race', async () => {
      const t = tenant();
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          make().admit(t, [{ pool: 'rooms', member: `r${i}`, limit: 7 }], 60_000),
        ),
      );
      expect(results.filter((r) => r.admitted)).toHaveLength(7);
      expect(await make().active(t, 'rooms')).toBe(7);
    });
  });
}
