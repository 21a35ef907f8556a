import { sleep } from '../load.js';
import { measure, type Outage, type ScenarioResult } from '../measure.js';
import type { World } from '../world.js';

export interface PostgresOutageOptions {
  restarts: number;
  /** Seconds the database stays stopped in the long outage (0: none). */
  stopSeconds: number;
  /** Seconds of load between two outages. */
  gapSeconds: number;
}

/**
 * `parley api`, `parley worker` and `parley start` on the private cluster, under ingest and reads;
 * the cluster is restarted `restarts` times (fast shutdown: every session ends with 57P01) and then
 * stopped for `stopSeconds`. Nothing may exit; the API answers 503 while the database is away.
 */
export async function postgresOutages(
  world: World,
  options: PostgresOutageOptions,
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const project = await world.project();
  const api = await world.process('api', 'pg-api');
  const worker = await world.process('worker', 'pg-worker');
  const start = await world.process('start', 'pg-start');
  await Promise.all([api.start(), worker.start(), start.start()]);
  const result = await measure({
    name: `PostgreSQL: ${options.restarts} restarts${options.stopSeconds > 0 ? ` + ${options.stopSeconds} s stopped` : ''}`,
    world,
    project,
    apis: () => [api, start],
    chaos: async () => {
      const outages: Outage[] = [];
      for (let i = 0; i < options.restarts; i++) {
        await sleep(options.gapSeconds * 1000);
        const down = Date.now();
        await world.pg.restart();
        outages.push({ what: `restart ${i + 1}`, down, back: Date.now() });
        log(`  restart ${i + 1}: down ${Date.now() - down} ms`);
      }
      if (options.stopSeconds > 0) {
        await sleep(options.gapSeconds * 1000);
        const down = Date.now();
        await world.pg.stop();
        await sleep(options.stopSeconds * 1000);
        await world.pg.start();
        outages.push({ what: `stopped ${options.stopSeconds} s`, down, back: Date.now() });
        log(`  stopped for ${options.stopSeconds} s`);
      }
      await sleep(options.gapSeconds * 1000);
      return { outages };
    },
  });
  await Promise.all([api.stop(), worker.stop(), start.stop()]);
  return result;
}
