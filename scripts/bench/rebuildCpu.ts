/**
 * One rebuild, with its CPU: for comparing rebuild code on the same seeded database, runs of
 * different checkouts interleaved. Not part of `npm run bench`.
 *
 *   node --conditions=@parley/source --import tsx scripts/bench/rebuildCpu.ts seed-sessions DB N
 *   node --conditions=@parley/source --import tsx scripts/bench/rebuildCpu.ts seed-ledger DB N
 *   node --conditions=@parley/source --import tsx scripts/bench/rebuildCpu.ts run DB session-summaries|llm-ledger
 *
 * DB is a database name on the tests' server (created by seed-*). `run` prints one JSON line:
 * events, seconds, events/s (replay and overall), this process's CPU µs per event and that of the
 * database's backends (from /proc), and the load average.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { storedCallerNumberKey } from '@parley/analytics';
import { llmStream, upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { ingest } from '@parley/ingest';
import { createPool, migrate, type Pool } from '@parley/platform';
import { ensureTestPostgres } from '@parley/platform/testing/postgres';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { sessionSummariesProjection } from '@parley/projection-session-summaries';
import pg from 'pg';
import { benchLedgerCall } from './ledgerCalls.js';
import { timeRebuild } from './rebuild.js';

const [mode, db, arg] = process.argv.slice(2);
const server = await ensureTestPostgres();
const url = new URL(server.adminUrl);
if (mode?.startsWith('seed-')) {
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`create database "${db}"`);
  await admin.end();
}
url.pathname = `/${db}`;
const pool = createPool({ connectionString: url.toString(), max: 8 });
await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations]);
const store = createPostgresEventStore({ pool, upcast });

async function seedSessions(events: number): Promise<void> {
  const deps = { store, pool, normaliseCallerNumber: storedCallerNumberKey };
  const scope = { tenantId: 'bench-tenant', projectId: 'bench-project' };
  // Imported here: ./ingest.js loads the API and the testing module (fast-check), seconds of a profile.
  const { itemSource } = await import('./ingest.js');
  let seeded = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      const next = itemSource();
      while (seeded < events) {
        const items = next(500);
        seeded += items.length;
        await ingest(deps, scope, items);
      }
    }),
  );
}

/** As scripts/bench/rebuildLedger.ts seeds. */
async function seedLedger(events: number): Promise<void> {
  // Imported here: the testing module builds fast-check arbitraries, seconds of a profile.
  const example = (await import('@parley/events/testing')).eventExamples.LlmCallRecorded;
  const perAppend = 1_000;
  const appends = Math.ceil(events / perAppend);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let n = next++; n < appends; n = next++) {
        const batch = Array.from({ length: perAppend }, (_, i) =>
          benchLedgerCall(example, n * perAppend + i),
        );
        await store.append(llmStream(`bench-${n}`), batch, { expectedRevision: 'no_stream' });
      }
    }),
  );
}

/** utime + stime (clock ticks, 100 per second) of this database's backends. */
async function backendTicks(p: Pool): Promise<number> {
  const { rows } = await p.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = current_database()',
  );
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // a backend that ended meanwhile
    }
  }
  return ticks;
}

try {
  if (mode === 'seed-sessions') await seedSessions(Number(arg));
  else if (mode === 'seed-ledger') await seedLedger(Number(arg));
  if (mode !== 'run') {
    await pool.query('vacuum analyze events');
  } else {
    const projection = arg === 'llm-ledger' ? llmLedgerProjection : sessionSummariesProjection;
    // Open the pool's connections first, so that their backends are counted from the start.
    const clients = await Promise.all(Array.from({ length: 8 }, () => pool.connect()));
    for (const c of clients) c.release();
    const load = loadavg()[0];
    const pgBefore = await backendTicks(pool);
    const cpuBefore = process.cpuUsage();
    const t0 = performance.now();
    const say = (line: string) =>
      process.env.REBUILD_PROGRESS && console.log(((performance.now() - t0) / 1000).toFixed(2), line);
    const r = await timeRebuild(pool, store, projection, say);
    const cpu = process.cpuUsage(cpuBefore);
    const pgTicks = (await backendTicks(pool)) - pgBefore;
    const perEvent = (us: number) => Math.round((us / r.events) * 10) / 10;
    console.log(
      JSON.stringify({
        projection: projection.name,
        events: r.events,
        seconds: Math.round(r.rebuildSeconds * 100) / 100,
        replayPerSecond: r.replayEventsPerSecond,
        overallPerSecond: Math.round(r.overallEventsPerSecond),
        nodeUsPerEvent: perEvent(cpu.user + cpu.system),
        pgUsPerEvent: perEvent(pgTicks * 10_000),
        load: [load, loadavg()[0]].map((x) => Math.round((x ?? 0) * 10) / 10),
      }),
    );
  }
} finally {
  await store.close();
  await pool.end();
}
