/**
 * `npm run chaos`: Parley as an operator breaks it (docs/reliability.md). Each scenario runs real
 * `parley api|worker|start` processes on a private PostgreSQL cluster (and private NATS and Redis
 * servers) that this script starts, breaks and removes: never the machine's shared ones. Under
 * ingest and reads it kills processes or stops dependencies, then compares acknowledged, logged and
 * read-model counts and reports exits, 5xx by status and recovery times. Markdown on stdout, progress
 * on stderr; the exit code is 1 when a scenario misses a target.
 */
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { ScenarioResult } from './measure.js';
import { markdownReport, problems } from './report.js';
import { natsOutage, redisOutage } from './scenarios/dependencyOutages.js';
import { postgresOutages } from './scenarios/postgresOutages.js';
import { apiKills, workerKills } from './scenarios/processKills.js';
import { rebuildUnderIngest } from './scenarios/rebuildUnderIngest.js';
import { rollingRestart } from './scenarios/rollingRestart.js';
import { openWorld, type World } from './world.js';

type Log = (line: string) => void;
interface Scenario {
  run(world: World, log: Log, quick: boolean): Promise<ScenarioResult>;
  /** Reads must be answered throughout (no outage of what they need). */
  readsThroughout: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  'worker-kill': {
    run: (w, log, quick) => workerKills(w, { kills: quick ? 2 : 5, gapSeconds: quick ? 2 : 4 }, log),
    readsThroughout: true,
  },
  'api-kill': {
    run: (w, log, quick) => apiKills(w, { kills: quick ? 2 : 4, gapSeconds: quick ? 2 : 4 }, log),
    readsThroughout: false,
  },
  postgres: {
    run: (w, log, quick) =>
      postgresOutages(
        w,
        { restarts: quick ? 2 : 5, stopSeconds: quick ? 5 : 20, gapSeconds: quick ? 2 : 4 },
        log,
      ),
    readsThroughout: false,
  },
  nats: {
    run: (w, log, quick) => natsOutage(w, { downSeconds: quick ? 5 : 15, gapSeconds: quick ? 2 : 4 }, log),
    readsThroughout: true,
  },
  redis: {
    run: (w, log, quick) => redisOutage(w, { downSeconds: quick ? 5 : 10, gapSeconds: quick ? 2 : 4 }, log),
    readsThroughout: true,
  },
  rebuild: {
    run: (w, log, quick) => rebuildUnderIngest(w, { gapSeconds: quick ? 2 : 4 }, log),
    readsThroughout: true,
  },
  rolling: {
    run: (w, log, quick) => rollingRestart(w, { gapSeconds: quick ? 2 : 3 }, log),
    readsThroughout: true,
  },
};

const program = new Command('chaos')
  .description('break Parley on purpose and measure what survives (docs/reliability.md)')
  .addOption(
    new Option('--only <names>', 'comma-separated scenarios').default(Object.keys(SCENARIOS).join(',')),
  )
  .option('--quick', 'shorter outages and fewer kills (a smoke run)')
  .option('--json <file>', 'also write every figure as JSON to this file')
  .parse();

const options = program.opts<{ only: string; quick?: boolean; json?: string }>();
const names = options.only
  .split(',')
  .map((n) => n.trim())
  .filter(Boolean);
const unknown = names.filter((n) => !(n in SCENARIOS));
if (unknown.length > 0)
  program.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);

const began = Date.now();
const log: Log = (line) =>
  process.stderr.write(`[chaos ${((Date.now() - began) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
const world = await openWorld(log);
const results: Array<{ result: ScenarioResult; problems: string[] }> = [];
try {
  for (const name of names) {
    const scenario = SCENARIOS[name] as Scenario;
    log(`${name}: starting`);
    const result = await scenario.run(world, log, options.quick === true);
    const found = problems(result, { readsThroughout: scenario.readsThroughout });
    results.push({ result, problems: found });
    log(`${name}: ${found.length === 0 ? 'pass' : `FAIL: ${found.join('; ')}`}`);
  }
} finally {
  await world.close();
}
process.stdout.write(`${markdownReport(results)}\n`);
if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
log(`logs of every process: ${world.logDir}`);
process.exitCode = results.some((r) => r.problems.length > 0) ? 1 : 0;
