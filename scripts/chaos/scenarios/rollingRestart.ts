import { sleep } from '../load.js';
import { measure, type ScenarioResult } from '../measure.js';
import type { ParleyProcess } from '../processes.js';
import type { World } from '../world.js';

/**
 * Two APIs and two workers; each API in turn is taken out of rotation (as a load balancer does on a
 * deploy), stopped gracefully (SIGTERM: in-flight requests finish), started and put back; then each
 * worker is stopped and started. Reads and ingest must be served throughout: no failed request.
 */
export async function rollingRestart(
  world: World,
  options: { gapSeconds: number },
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const project = await world.project();
  const apis = [await world.process('api', 'roll-api-1'), await world.process('api', 'roll-api-2')];
  const workers = [
    await world.process('worker', 'roll-worker-1'),
    await world.process('worker', 'roll-worker-2'),
  ];
  await Promise.all([...apis, ...workers].map((p) => p.start()));
  const out = new Set<ParleyProcess>();
  const stops: number[] = [];
  const result = await measure({
    name: 'rolling restart of 2 APIs and 2 workers',
    world,
    project,
    apis: () => apis.filter((a) => !out.has(a)),
    chaos: async () => {
      for (const api of apis) {
        await sleep(options.gapSeconds * 1000);
        out.add(api);
        // Requests already sent to it finish; new ones go to the other.
        await sleep(200);
        const started = Date.now();
        await api.stop();
        stops.push(Date.now() - started);
        await api.start();
        out.delete(api);
        log(`  ${api.name} stopped in ${stops.at(-1)} ms, restarted in ${Date.now() - started} ms`);
      }
      for (const worker of workers) {
        await sleep(options.gapSeconds * 1000);
        const started = Date.now();
        await worker.stop();
        stops.push(Date.now() - started);
        await worker.start();
        log(`  ${worker.name} stopped in ${stops.at(-1)} ms, restarted in ${Date.now() - started} ms`);
      }
      await sleep(options.gapSeconds * 1000);
      return {
        outages: [],
        notes: [`graceful stops took ${stops.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}`],
      };
    },
  });
  // A graceful stop that needed the forced exit (close-with-grace's 15 s) left work or connections behind.
  result.extra.slowestStopMs = Math.max(...stops);
  await Promise.all([...apis, ...workers].map((p) => p.stop()));
  return result;
}
