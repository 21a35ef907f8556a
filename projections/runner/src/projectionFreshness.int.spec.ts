import { formatPosition } from '@parley/eventstore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureProjection } from './ensureProjection.js';
import { projectionFreshness } from './projectionFreshness.js';
import {
  caughtUp,
  createHarness,
  event,
  freshTally,
  type Harness,
  testRunner,
  wholeLog,
} from './spec/harness.js';
import { TALLY_TYPES } from './spec/tallyProjection.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('projectionFreshness', () => {
  it('is all null for a projection that was never registered', async () => {
    expect(await projectionFreshness(h.db.pool, 'never-registered')).toEqual({
      position: null,
      recordedAt: null,
      generation: null,
    });
  });

  it('has no position before the first event is applied', async () => {
    const { projection } = freshTally();
    await ensureProjection(h.db.pool, projection);
    expect(await projectionFreshness(h.db.pool, projection.name)).toEqual({
      position: null,
      recordedAt: null,
      generation: 1,
    });
  });

  it("reports the live generation's checkpoint and the last applied event's recordedAt", async () => {
    const { projection } = freshTally();
    const runner = testRunner(h, { projections: [projection] });
    await runner.start();
    try {
      await h.store.append(`s-${projection.name}`, [event('Added', { amount: 1 }), event('Noise')]);
      const live = await caughtUp(h, projection);
      const lastApplied = (await wholeLog(h.store))
        .filter((e) => (TALLY_TYPES as readonly string[]).includes(e.type))
        .at(-1);
      expect(await projectionFreshness(h.db.pool, projection.name)).toEqual({
        position: formatPosition(live.checkpoint),
        recordedAt: lastApplied?.recordedAt,
        generation: 1,
      });
    } finally {
      await runner.stop();
    }
  });
});
