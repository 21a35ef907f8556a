/**
 * `npm run bench`: the log's append throughput against a raw INSERT baseline,
 * and the rebuild throughput of the demo projection. Ratios are measured in
 * one run, since machines are noisy. Knobs: BENCH_SECONDS (per append
 * scenario, default 3), BENCH_REBUILD_EVENTS (default 1,000,000),
 * BENCH_BATCH (events per batched append, default 100), BENCH_ONLY
 * (`append`, `rebuild` or `lag`). Results go to stdout as Markdown, progress to stderr.
 */
import { cpus } from 'node:os';
import { benchAppend } from './append.js';
import { openBenchDatabase } from './database.js';
import { benchLag } from './lag.js';
import { benchRebuild } from './rebuild.js';

const num = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};

const durationMs = num('BENCH_SECONDS', 3) * 1000;
const rebuildEvents = num('BENCH_REBUILD_EVENTS', 1_000_000);
const batchSize = num('BENCH_BATCH', 100);
const only = process.env.BENCH_ONLY;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (line: string) => process.stderr.write(`${line}\n`);

async function appendSection(): Promise<string[]> {
  const db = await openBenchDatabase(40);
  try {
    log(`append: ${durationMs / 1000} s per scenario…`);
    const rows = await benchAppend(db.pool, { durationMs, batchSize, writers: [1, 8, 32] }, (r) =>
      log(
        `  ${r.mode} x${r.writers}: ${fmt(r.appendPerSecond)}/s vs raw ${fmt(r.rawPerSecond)}/s (${r.ratio.toFixed(2)})`,
      ),
    );
    return [
      '### Append throughput (events/s) vs a raw multi-row INSERT of the same rows into a plain table',
      '',
      '| mode | events per append | writers | append | raw INSERT | ratio |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.mode} | ${r.batchSize} | ${r.writers} | ${fmt(r.appendPerSecond)} | ${fmt(r.rawPerSecond)} | ${r.ratio.toFixed(2)} |`,
      ),
      '',
    ];
  } finally {
    await db.close();
  }
}

async function rebuildSection(): Promise<string[]> {
  // A database of its own, so the rebuild replays exactly the events it seeded.
  const db = await openBenchDatabase(8);
  try {
    log(`rebuild: seeding ${fmt(rebuildEvents)} events…`);
    const r = await benchRebuild(db.pool, { events: rebuildEvents }, log);
    return [
      '### Rebuild of the event-counts projection from the start of the log',
      '',
      '| events | rebuild time | events/s (replay) | events/s (overall, incl. swap) | target |',
      '|---|---|---|---|---|',
      `| ${fmt(r.events)} | ${r.rebuildSeconds.toFixed(1)} s | ${fmt(r.replayEventsPerSecond)} | ${fmt(r.overallEventsPerSecond)} | >= 20,000 |`,
      '',
      `(seeding the log through the append path took ${r.seedSeconds.toFixed(1)} s: ${fmt(r.events / r.seedSeconds)} events/s in 1,000-event appends by 4 writers)`,
      '',
    ];
  } finally {
    await db.close();
  }
}

async function lagSection(): Promise<string[]> {
  const db = await openBenchDatabase(12);
  try {
    const shape = { seconds: num('BENCH_LAG_SECONDS', 15), writers: 4, batch: 10, intervalMs: 40 };
    log(
      `lag: ${shape.writers} writers x ${shape.batch} events every ${shape.intervalMs} ms for ${shape.seconds} s…`,
    );
    const r = await benchLag(db.pool, db.url, shape);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    return [
      '### Head-to-read lag under steady ingest (append committed → projection applied)',
      '',
      '| ingest | appends | p50 | p95 | p99 | max | target p99 |',
      '|---|---|---|---|---|---|---|',
      `| ${fmt(r.eventsPerSecond)} events/s | ${fmt(r.appends)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${ms(r.max)} | < 250 ms |`,
      '',
    ];
  } finally {
    await db.close();
  }
}

const probe = await openBenchDatabase(1);
const { rows } = await probe.pool.query<{ server_version: string }>('show server_version');
const header = [
  `Parley benchmarks, ${new Date().toISOString()}`,
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, PostgreSQL ${rows[0]?.server_version} (${probe.source})`,
  '',
];
await probe.close();

const run = (name: string) => only === undefined || only === name;
const sections = [
  ...(run('append') ? await appendSection() : []),
  ...(run('rebuild') ? await rebuildSection() : []),
  ...(run('lag') ? await lagSection() : []),
];
process.stdout.write(`${[...header, ...sections].join('\n')}\n`);
