/**
 * `npm run bench`: the log's append throughput against a raw INSERT baseline,
 * and the rebuild throughput of the demo projection. Ratios are measured in
 * one run, since machines are noisy. Knobs: BENCH_SECONDS (per append
 * scenario, default 3), BENCH_REBUILD_EVENTS (default 1,000,000),
 * BENCH_BATCH (events per batched append, default 100), BENCH_ONLY
 * (`append` or `rebuild`).
 */
import { cpus } from 'node:os';
import { type AppendResultRow, benchAppend } from './append.js';
import { openBenchDatabase } from './database.js';
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

const db = await openBenchDatabase(40);
const version = (await db.pool.query<{ server_version: string }>('show server_version')).rows[0]
  ?.server_version;
const lines: string[] = [
  `Parley benchmarks, ${new Date().toISOString()}`,
  `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, PostgreSQL ${version} (${db.source})`,
  '',
];
try {
  if (only !== 'rebuild') {
    log(`append: ${durationMs / 1000} s per scenario…`);
    const rows: AppendResultRow[] = await benchAppend(
      db.pool,
      { durationMs, batchSize, writers: [1, 8, 32] },
      (r) =>
        log(
          `  ${r.mode} x${r.writers}: ${fmt(r.appendPerSecond)} events/s vs raw ${fmt(r.rawPerSecond)} (${r.ratio.toFixed(2)})`,
        ),
    );
    lines.push(
      '### Append throughput (events/s) vs a raw multi-row INSERT of the same rows into a plain table',
      '',
      '| mode | events per append | writers | append | raw INSERT | ratio |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.mode} | ${r.batchSize} | ${r.writers} | ${fmt(r.appendPerSecond)} | ${fmt(r.rawPerSecond)} | ${r.ratio.toFixed(2)} |`,
      ),
      '',
    );
  }
  if (only !== 'append') {
    log(`rebuild: seeding ${fmt(rebuildEvents)} events…`);
    const r = await benchRebuild(db.pool, { events: rebuildEvents }, log);
    lines.push(
      '### Rebuild of the event-counts projection from the start of the log',
      '',
      '| events | rebuild time | events/s (replay) | events/s (overall, incl. swap) | target |',
      '|---|---|---|---|---|',
      `| ${fmt(r.events)} | ${r.rebuildSeconds.toFixed(1)} s | ${fmt(r.replayEventsPerSecond)} | ${fmt(r.overallEventsPerSecond)} | >= 20,000 |`,
      '',
      `(seeding the log through the append path took ${r.seedSeconds.toFixed(1)} s: ${fmt(r.events / r.seedSeconds)} events/s in 1,000-event appends by 4 writers)`,
      '',
    );
  }
} finally {
  await db.close();
}
process.stdout.write(`${lines.join('\n')}\n`);
