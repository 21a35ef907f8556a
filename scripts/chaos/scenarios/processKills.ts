import { sleep } from '../load.js';
import { measure, type Outage, type ScenarioResult } from '../measure.js';
import type { ParleyProcess } from '../processes.js';
import type { World } from '../world.js';

export interface KillOptions {
  kills: number;
  /** Seconds of load between two kills. */
  gapSeconds: number;
}

/** SIGKILL `target` `kills` times under load, starting it again each time (as a supervisor would). */
async function killLoop(
  target: ParleyProcess,
  options: KillOptions,
  log: (l: string) => void,
): Promise<Outage[]> {
  const outages: Outage[] = [];
  for (let i = 0; i < options.kills; i++) {
    await sleep(options.gapSeconds * 1000);
    const down = Date.now();
    await target.kill();
    await target.start();
    outages.push({ what: `${target.name} kill ${i + 1}`, down, back: Date.now() });
    log(`  kill -9 ${target.name} (${i + 1}/${options.kills}): back after ${Date.now() - down} ms`);
  }
  await sleep(options.gapSeconds * 1000);
  return outages;
}

/**
 * `parley worker` killed with SIGKILL mid-batch, again and again, under ingest: the projection's
 * checkpoint commits with its rows, so the read model ends exactly equal to the log (nothing lost,
 * nothing applied twice).
 */
export async function workerKills(
  world: World,
  options: KillOptions,
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const project = await world.project();
  const api = await world.process('api', 'wk-api');
  const worker = await world.process('worker', 'wk-worker');
  await Promise.all([api.start(), worker.start()]);
  const result = await measure({
    name: `worker kill -9 x${options.kills}`,
    world,
    project,
    apis: () => [api],
    chaos: async () => ({ outages: await killLoop(worker, options, log) }),
  });
  await Promise.all([api.stop(), worker.stop()]);
  return result;
}

/**
 * `parley api` killed with SIGKILL under ingest: batches in flight get no answer, and the clients
 * send the same batch (the same item ids) again until it is acknowledged. Ingest is idempotent by item
 * id, so the log ends with every acknowledged item exactly once.
 */
export async function apiKills(
  world: World,
  options: KillOptions,
  log: (l: string) => void,
): Promise<ScenarioResult> {
  const project = await world.project();
  const api = await world.process('api', 'ak-api');
  const worker = await world.process('worker', 'ak-worker');
  await Promise.all([api.start(), worker.start()]);
  const result = await measure({
    name: `API kill -9 x${options.kills}, clients retrying the same ids`,
    world,
    project,
    apis: () => [api],
    chaos: async () => ({ outages: await killLoop(api, options, log) }),
  });
  await Promise.all([api.stop(), worker.stop()]);
  return result;
}
