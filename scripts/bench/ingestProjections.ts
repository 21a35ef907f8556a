/**
 * The ingest bench's projection runner in a process of its own, as the worker runs it beside the
 * API when deployed (apps/worker): session-summaries and llm-ledger, at the worker's default batch
 * size. Started by scripts/bench/ingest.ts with fork(); the database URL and batch size come as
 * arguments. It tells the parent of every applied batch ({ projection, commit, prepare } with the
 * checkpoint as decimal strings) and of being ready, and answers `cpu` with its CPU time so far
 * (ms); a `stop` message stops it.
 */
import { upcast } from '@parley/events';
import { createPostgresEventStore } from '@parley/eventstore';
import { createPool } from '@parley/platform';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { createProjectionRunner } from '@parley/projection-runner';
import { sessionSummariesProjection } from '@parley/projection-session-summaries';
import { PROJECTIONS_APPLICATION } from './ingestCpu.js';

export interface AppliedMessage {
  kind: 'applied';
  projection: string;
  commit: string;
  prepare: string;
}

const [connectionString, batchSize] = process.argv.slice(2);
if (!connectionString || !process.send) throw new Error('started by scripts/bench/ingest.ts only');
export type ChildMessage = AppliedMessage | { kind: 'ready' } | { kind: 'cpu'; ms: number };
const send = (message: ChildMessage) => process.send?.(message);

// The worker's default DATABASE_POOL_MAX (packages/platform/src/config.ts).
const pool = createPool({
  connectionString,
  max: 10,
  applicationName: PROJECTIONS_APPLICATION,
});
const trace: string[] | undefined = process.env.BENCH_INGEST_TRACE ? [] : undefined;
const store = createPostgresEventStore({ pool, connectionString, upcast });
const runner = createProjectionRunner({
  pool,
  store,
  projections: [sessionSummariesProjection, llmLedgerProjection],
  batchSize: Number(batchSize),
  onBatchApplied: ({ projection, checkpoint, events, durationMs }) => {
    if (trace) trace.push(`${performance.now().toFixed(1)} ${projection} ${events} ${durationMs.toFixed(1)}`);
    send({
      kind: 'applied',
      projection,
      commit: checkpoint.commit.toString(),
      prepare: checkpoint.prepare.toString(),
    });
  },
});
process.on('message', (message) => {
  if (message === 'cpu') {
    const used = process.cpuUsage();
    send({ kind: 'cpu', ms: (used.user + used.system) / 1000 });
  }
  if (message !== 'stop') return;
  void (async () => {
    await runner.stop();
    await store.close();
    await pool.end();
    if (trace)
      (await import('node:fs')).writeFileSync(process.env.BENCH_INGEST_TRACE as string, trace.join('\n'));
    process.disconnect();
  })();
});
await runner.start();
send({ kind: 'ready' });
