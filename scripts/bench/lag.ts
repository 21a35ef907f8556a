import { randomUUID } from 'node:crypto';
import {
  comparePositions,
  createPostgresEventStore,
  eventStoreMigrations,
  type Position,
} from '@parley/eventstore';
import { migrate, type Pool } from '@parley/platform';
import { eventCountsProjection } from '@parley/projection-event-counts';
import { createProjectionRunner, projectionRunnerMigrations } from '@parley/projection-runner';

export interface LagResult {
  eventsPerSecond: number;
  appends: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * Head-to-read lag under steady ingest: `writers` loops each append a batch of
 * `batch` events every `intervalMs`, while a projection runner (the worker's,
 * with its LISTEN/NOTIFY wake-ups) applies them. An append's lag is the time
 * from its append returning (committed) to the first applied batch whose
 * checkpoint covers its position.
 */
export async function benchLag(
  pool: Pool,
  connectionString: string,
  options: { seconds: number; writers: number; batch: number; intervalMs: number },
): Promise<LagResult> {
  await migrate(pool, [eventStoreMigrations, projectionRunnerMigrations]);
  const store = createPostgresEventStore({ pool, connectionString });
  const pending: Array<{ position: Position; at: number }> = [];
  const lags: number[] = [];
  const runner = createProjectionRunner({
    pool,
    store,
    projections: [eventCountsProjection],
    onBatchApplied: ({ checkpoint }) => {
      const now = performance.now();
      for (let i = pending.length - 1; i >= 0; i--) {
        const p = pending[i]!;
        if (comparePositions(p.position, checkpoint) <= 0) {
          lags.push(now - p.at);
          pending.splice(i, 1);
        }
      }
    },
  });
  await runner.start();
  let appended = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: options.writers }, async (_, w) => {
        const stream = `lag-${w}-${randomUUID()}`;
        for (let next = performance.now(); next < deadline; next += options.intervalMs) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const events = Array.from({ length: options.batch }, (_, i) => ({
            eventId: randomUUID(),
            type: 'MessageReceived',
            data: { i, text: 'steady ingest' },
            metadata: { projectId: 'bench-lag' },
          }));
          const result = await store.append(stream, events);
          pending.push({ position: result.position, at: performance.now() });
          appended += events.length;
        }
      }),
    );
    const settle = performance.now() + 5_000;
    while (pending.length > 0 && performance.now() < settle) await new Promise((r) => setTimeout(r, 20));
  } finally {
    await runner.stop();
    await store.close();
  }
  if (pending.length > 0) throw new Error(`${pending.length} appends were never projected`);
  const sorted = lags.sort((a, b) => a - b);
  return {
    eventsPerSecond: appended / options.seconds,
    appends: sorted.length,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    max: sorted.at(-1) ?? 0,
  };
}
