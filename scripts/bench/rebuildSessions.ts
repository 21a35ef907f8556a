import { storedCallerNumberKey } from '@parley/analytics';
import { upcast } from '@parley/events';
import { createPostgresEventStore, eventStoreMigrations } from '@parley/eventstore';
import { ingest } from '@parley/ingest';
import { migrate, type Pool } from '@parley/platform';
import { llmLedgerProjection } from '@parley/projection-llm-ledger';
import { projectionRunnerMigrations } from '@parley/projection-runner';
import { sessionSummariesProjection } from '@parley/projection-session-summaries';
import { itemSource } from './ingest.js';
import { type TimedRebuild, timeRebuild } from './rebuild.js';

export interface SessionRebuildResult {
  events: number;
  seedSeconds: number;
  sessionSummaries: TimedRebuild;
  llmLedger: TimedRebuild;
  /** session-summaries rebuilt again while ingest appends at `ingestRate` facts/s. */
  duringIngest: TimedRebuild & { ingestRate: number; ingested: number };
}

const SCOPE = { tenantId: 'bench-tenant', projectId: 'bench-project' };

/**
 * `events` facts through the ingest path (sessions of 14: start, 4 x message, LLM call, reply,
 * end; 500 items a batch, 4 writers); then a rebuild of session-summaries alone, of llm-ledger
 * alone, and of session-summaries again while ingest goes on at `ingestRate` facts/s (batches of
 * 100 every 100 ms per writer of ingestRate / 1,000 writers).
 */
export async function benchSessionRebuild(
  pool: Pool,
  options: { events: number; ingestRate: number },
  progress: (line: string) => void,
): Promise<SessionRebuildResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations]);
  const store = createPostgresEventStore({ pool, upcast });
  const deps = { store, pool, normaliseCallerNumber: storedCallerNumberKey };
  try {
    const seedStarted = performance.now();
    let seeded = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        const next = itemSource();
        while (seeded < options.events) {
          const items = next(500);
          seeded += items.length;
          await ingest(deps, SCOPE, items);
          if (seeded % 20_000 < 500) progress(`  seeding: ${seeded} facts`);
        }
      }),
    );
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await pool.query('vacuum analyze events');
    progress('  rebuild: session-summaries alone…');
    const sessionSummaries = await timeRebuild(pool, store, sessionSummariesProjection, progress);
    progress('  rebuild: llm-ledger alone…');
    const llmLedger = await timeRebuild(pool, store, llmLedgerProjection, progress);

    progress(`  rebuild: session-summaries during ingest at ${options.ingestRate} facts/s…`);
    const writers = Math.max(1, Math.round(options.ingestRate / 1_000));
    let stop = false;
    let ingested = 0;
    const ingesting = Promise.all(
      Array.from({ length: writers }, async () => {
        const next = itemSource();
        for (let at = performance.now(); !stop; at += 100) {
          const wait = at - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const items = next(100);
          await ingest(deps, SCOPE, items);
          ingested += items.length;
        }
      }),
    );
    const ingestStarted = performance.now();
    let duringIngest: TimedRebuild;
    try {
      duringIngest = await timeRebuild(pool, store, sessionSummariesProjection, progress);
    } finally {
      stop = true;
      await ingesting;
    }
    const ingestRate = ingested / ((performance.now() - ingestStarted) / 1000);
    return {
      events: seeded,
      seedSeconds,
      sessionSummaries,
      llmLedger,
      duringIngest: { ...duringIngest, ingestRate, ingested },
    };
  } finally {
    await store.close();
  }
}
