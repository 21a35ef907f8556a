import { llmStream } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { benchLedgerCall, callHasPayload } from './ledgerCalls.js';
import { timeRebuild } from './rebuild.js';

export interface LedgerRebuildResult {
  events: number;
  withPayload: number;
  seedSeconds: number;
  rebuildSeconds: number;
  replayEventsPerSecond: number;
  overallEventsPerSecond: number;
}

/**
 * `events` LlmCallRecorded events (the catalog's example call, varied: ten calls a session, models,
 * a payload on every third), appended 1,000 at a time by 4 writers; then a rebuild of the
 * llm-ledger projection from the start of the log into a new generation, swapped in.
 */
export async function benchLedgerRebuild(
  pool: Pool,
  options: { events: number },
  progress: (line: string) => void,
): Promise<LedgerRebuildResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations]);
  const store = createPostgresEventStore({ pool });
  const example = eventExamples.LlmCallRecorded;
  try {
    const perAppend = 1_000;
    const appends = Math.ceil(options.events / perAppend);
    let next = 0;
    let withPayload = 0;
    const seedStarted = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let n = next++; n < appends; n = next++) {
          const events = Array.from({ length: perAppend }, (_, i) => {
            const g = n * perAppend + i;
            if (callHasPayload(g)) withPayload++;
            return benchLedgerCall(example, g);
          });
          await store.append(llmStream(`bench-${n}`), events, { expectedRevision: 'no_stream' });
          if (n % 20 === 0) progress(`  seeding: ${n * perAppend} events`);
        }
      }),
    );
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await pool.query('vacuum analyze events');

    return { ...(await timeRebuild(pool, store, llmLedgerProjection, progress)), withPayload, seedSeconds };
  } finally {
    await store.close();
  }
}
