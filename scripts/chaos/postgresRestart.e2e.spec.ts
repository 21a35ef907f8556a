import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problems } from './report.js';
import { postgresOutages } from './scenarios/postgresOutages.js';
import { openWorld, type World } from './world.js';

// The CI subset of `npm run chaos` (docs/reliability.md): `parley api`, `parley worker` and `parley
// start` on a private PostgreSQL cluster (started here, never the machine's shared one) restarted
// under ingest and reads.
let world: World;
beforeAll(async () => {
  world = await openWorld(() => {});
}, 120_000);
afterAll(async () => {
  await world?.close();
});

describe('a PostgreSQL restart under ingest', () => {
  it('ends no process, loses nothing, answers only 503 meanwhile and recovers within 5 s', async () => {
    const result = await postgresOutages(world, { restarts: 2, stopSeconds: 3, gapSeconds: 2 }, () => {});
    expect(problems(result, { readsThroughout: false })).toEqual([]);
    expect(result.unexpectedExits).toBe(0);
    expect(result.lost + result.duplicated + result.readModelDelta).toBe(0);
    // The outages were felt (the database was away while requests came), and only as 503s.
    expect(result.duringOutages['503'] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(result.duringOutages).filter((s) => s !== '200' && s !== '503')).toEqual([]);
    expect(result.recoveryMs.ingest).toBeLessThan(5_000);
    expect(result.recoveryMs.read).toBeLessThan(5_000);
    expect(result.recoveryMs.projection).toBeLessThan(5_000);
  }, 150_000);
});
