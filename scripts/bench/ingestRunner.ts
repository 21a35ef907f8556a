import { fork } from 'node:child_process';
import type { EventStore, Position } from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { createProjectionRunner } from '@parley/projection-runner';
import { sessionSummariesProjection } from '@parley/projection-session-summaries';
import type { ChildMessage } from './ingestProjections.js';

/**
 * Where the ingest bench applies session-summaries and llm-ledger: `process` (default), a process
 * of its own as deployed (the worker beside the API; ./ingestProjections.ts); `inline`, the bench's
 * own process, sharing its one thread with the API and the clients (as before issue 21's ingest
 * work). The batch size is the worker's default PROJECTION_BATCH_SIZE unless
 * BENCH_INGEST_PROJECTION_BATCH says otherwise.
 */
export type ProjectionsMode = 'process' | 'inline';

export const ingestProjectionNames = [sessionSummariesProjection.name, llmLedgerProjection.name];

export interface RunningProjections {
  /** The CPU time of the projections' own process so far (ms); null when inline (the bench's). */
  cpuMs(): Promise<number | null>;
  stop(): Promise<void>;
}

type OnApplied = (projection: string, checkpoint: Position) => void;

export async function startIngestProjections(
  mode: ProjectionsMode,
  deps: { pool: Pool; store: EventStore; connectionString: string; batchSize: number },
  onApplied: OnApplied,
): Promise<RunningProjections> {
  switch (mode) {
    case 'inline': {
      const runner = createProjectionRunner({
        pool: deps.pool,
        store: deps.store,
        projections: [sessionSummariesProjection, llmLedgerProjection],
        batchSize: deps.batchSize,
        onBatchApplied: ({ projection, checkpoint }) => onApplied(projection, checkpoint),
      });
      await runner.start();
      return { cpuMs: async () => null, stop: () => runner.stop() };
    }
    case 'process':
      return startProcess(deps.connectionString, deps.batchSize, onApplied);
    default: {
      const never: never = mode;
      throw new Error(`unknown projections mode ${String(never)}`);
    }
  }
}

async function startProcess(
  connectionString: string,
  batchSize: number,
  onApplied: OnApplied,
): Promise<RunningProjections> {
  const child = fork(
    new URL('./ingestProjections.ts', import.meta.url),
    [connectionString, String(batchSize)],
    {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(process.env.BENCH_INGEST_CPU_PROF
        ? {
            execArgv: [
              ...process.execArgv,
              '--cpu-prof',
              `--cpu-prof-dir=${process.env.BENCH_INGEST_CPU_PROF}`,
            ],
          }
        : {}),
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cpuAnswers: Array<(ms: number) => void> = [];
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the projections process exited (${code})`)));
    child.on('message', (message: ChildMessage) => {
      switch (message.kind) {
        case 'ready':
          return resolve();
        case 'cpu':
          return cpuAnswers.shift()?.(message.ms);
        case 'applied':
          return onApplied(message.projection, {
            commit: BigInt(message.commit),
            prepare: BigInt(message.prepare),
          });
        default: {
          const never: never = message;
          throw new Error(`unexpected message ${JSON.stringify(never)}`);
        }
      }
    });
  });
  return {
    cpuMs: () =>
      new Promise<number>((resolve) => {
        cpuAnswers.push(resolve);
        child.send('cpu');
      }),
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}
