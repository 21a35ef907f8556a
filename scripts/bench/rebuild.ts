import { randomUUID } from 'node:crypto';
import { createPostgresEventStore, type EventToAppend, eventStoreMigrations } from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';
import { eventCountsProjection } from '@parley/projection-event-counts';
import { ensureProjection, projectionRunnerMigrations, rebuildProjection } from '@parley/projection-runner';

export interface RebuildBenchResult {
  events: number;
  seedSeconds: number;
  rebuildSeconds: number;
  replayEventsPerSecond: number;
  overallEventsPerSecond: number;
}

const TYPES = ['SessionStarted', 'MessageReceived', 'LlmCallRecorded', 'AgentReplied', 'SessionEnded'];

function batchOf(stream: number, size: number): EventToAppend[] {
  const projectId = `bench-project-${stream % 50}`;
  return Array.from({ length: size }, (_, i) => ({
    eventId: randomUUID(),
    type: TYPES[i % TYPES.length]!,
    data: { sessionId: `bench-${stream}`, projectId, i, text: 'Where is my order? It was due on Tuesday.' },
    metadata: { tenantId: 'bench-tenant', projectId },
  }));
}

/**
 * Appends `events` events through the log's append path (1,000 per append,
 * 4 writers), then rebuilds the event-counts projection from the start of
 * the log into a new generation and swaps it in.
 */
export async function benchRebuild(
  pool: Pool,
  options: { events: number },
  progress: (line: string) => void,
): Promise<RebuildBenchResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations]);
  const store = createPostgresEventStore({ pool });
  try {
    const perAppend = 1_000;
    const appends = Math.ceil(options.events / perAppend);
    let next = 0;
    const seedStarted = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let n = next++; n < appends; n = next++) {
          await store.append(`bench-rebuild-${n}`, batchOf(n, perAppend), { expectedRevision: 'no_stream' });
          if (n % 100 === 0) progress(`  seeding: ${n * perAppend} events`);
        }
      }),
    );
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    await pool.query('vacuum analyze events');

    await ensureProjection(pool, eventCountsProjection);
    const started = performance.now();
    const result = await rebuildProjection({
      pool,
      store,
      projection: eventCountsProjection,
      onProgress: (p) =>
        progress(
          `  rebuild: ${p.phase} ${p.eventsProcessed} events, ${Math.round(p.eventsPerSecond)} events/s`,
        ),
    });
    const rebuildSeconds = (performance.now() - started) / 1000;
    return {
      events: result.eventsProcessed,
      seedSeconds,
      rebuildSeconds,
      replayEventsPerSecond: result.eventsPerSecond,
      overallEventsPerSecond: result.eventsProcessed / rebuildSeconds,
    };
  } finally {
    await store.close();
  }
}
