import { sleep } from '../load.js';
import { measure, type ScenarioResult } from '../measure.js';
import { runParley } from '../processes.js';
import type { World } from '../world.js';

/**
 * `parley projections rebuild session-summaries` (blue/green: the next generation builds from the
 * start of the log while the live one serves, then swaps) while ingest and reads go on: the read
 * model after the swap equals the log, and reads never fail.
 */
export async function rebuildUnderIngest(
  world: World,
  options: { gapSeconds: number },
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const project = await world.project();
  const api = await world.process('api', 'rb-api');
  const worker = await world.process('worker', 'rb-worker');
  await Promise.all([api.start(), worker.start()]);
  const result = await measure({
    name: 'rebuild session-summaries under ingest',
    world,
    project,
    apis: () => [api],
    chaos: async () => {
      await sleep(options.gapSeconds * 1000);
      const started = Date.now();
      await runParley(['projections', 'rebuild', 'session-summaries'], { DATABASE_URL: world.pg.url });
      log(`  rebuild done in ${Date.now() - started} ms`);
      await sleep(options.gapSeconds * 1000);
      return { outages: [], notes: [`rebuild took ${Date.now() - started} ms`] };
    },
  });
  await Promise.all([api.stop(), worker.stop()]);
  return result;
}
