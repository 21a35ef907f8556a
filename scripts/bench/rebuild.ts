import { randomUUID } from 'node:crypto';
import {
  createPostgresEventStore,
  type EventStore,
  type EventToAppend,
  eventStoreMigrations,
} from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';
import { eventCountsProjection } from '@parley/projection-event-counts';
import {
  ensureProjection,
  type Projection,
  projectionRunnerMigrations,
  rebuildProjection,
} from '@parley/projection-runner';

export interface TimedRebuild {
  events: number;
  rebuildSeconds: number;
  replayEventsPerSecond: number;
  overallEventsPerSecond: number;
}

/** Registers the projection, then times a blue/green rebuild of it from the start of the log. */
export async function timeRebuild(
  pool: Pool,
  store: EventStore,
  projection: Projection,
  progress: (line: string) => void,
): Promise<TimedRebuild> {
  await ensureProjection(pool, projection);
  const started = performance.now();
  const result = await rebuildProjection({
    pool,
    store,
    projection,
    onProgress: (p) =>
      progress(
        `  rebuild: ${p.phase} ${p.eventsProcessed} events, ${Math.round(p.eventsPerSecond)} events/s`,
      ),
  });
  const rebuildSeconds = (performance.now() - started) / 1000;
  return {
    events: result.eventsProcessed,
    rebuildSeconds,
    replayEventsPerSecond: result.eventsPerSecond,
    overallEventsPerSecond: result.eventsProcessed / rebuildSeconds,
  };
}

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

    return { ...(await timeRebuild(pool, store, eventCountsProjection, progress)), seedSeconds };
  } finally {
    await store.close();
  }
}
