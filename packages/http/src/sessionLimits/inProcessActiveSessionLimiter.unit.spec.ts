import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { activeSessionLimiterContract } from '../testing/activeSessionLimiterContract.js';
import { createInProcessActiveSessionLimiter } from './inProcessActiveSessionLimiter.js';

const shared = createInProcessActiveSessionLimiter();
activeSessionLimiterContract('in-process', () => shared);

describe('in-process active session limiter', () => {
  it('never counts more than `limit` active sessions, whatever the sequence of operations', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('acquire' as const), member: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('release' as const), member: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 400 }) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        async (ops, limit) => {
          let clock = 0;
          const limiter = createInProcessActiveSessionLimiter({ now: () => clock });
          // A model: member → last activity.
          const model = new Map<number, number>();
          for (const o of ops) {
            if (o.kind === 'tick') clock += o.ms;
            else if (o.kind === 'release') {
              model.delete(o.member);
              await limiter.release('t', String(o.member));
            } else {
              for (const [m, at] of model) if (at <= clock - 1000) model.delete(m);
              const expected = model.has(o.member) || model.size < limit;
              const decision = await limiter.acquire('t', String(o.member), limit, 1000);
              expect(decision.allowed).toBe(expected);
              if (expected) model.set(o.member, clock);
              expect(decision.active).toBe(model.size);
              expect(decision.active).toBeLessThanOrEqual(limit);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
