import { setImmediate } from 'node:timers/promises';
import type { EventStore, Position, RecordedEvent } from '@parley/eventstore';
import { type Logger, type Pool, type PoolClient, silentLogger } from '@parley/platform';
import { applyBatch } from './applyBatch.js';
import type { Projection } from './defineProjection.js';
import { ensureProjection } from './ensureProjection.js';
import { ProjectionBusyError, ProjectionHandlerError } from './errors.js';
import { type BatchPlan, batchPlanner } from './fold.js';
import { buildIndexes, dropRetiredTables, prepareGeneration, swapGeneration } from './generations.js';
import { inTransaction } from './inTransaction.js';
import { DEFAULT_LAG_CAP } from './projectionStatus.js';
import {
  advisoryUnlock,
  lockRegistryEntry,
  rebuildLockKey,
  recordFailure,
  tryAdvisoryLock,
  writerLockKey,
} from './registry.js';
import { WrittenKeys } from './writtenKeys.js';

/** Events planned between two looks at the connection's replies (see read). */
const PLAN_SLICE = 500;

interface ReadBatch {
  readonly events: readonly RecordedEvent[];
  /** Undefined when planning threw: applyBatch plans again and throws at the right time. */
  readonly plan: BatchPlan | undefined;
}

export interface RebuildProgress {
  readonly name: string;
  readonly generation: number;
  readonly phase: 'replaying' | 'indexing' | 'swapping' | 'done';
  /** Events folded into the new generation (including those of an interrupted run it resumed). */
  readonly eventsProcessed: number;
  /** Over this run's replay so far. */
  readonly eventsPerSecond: number;
  /** Events still to replay, counted up to the cap in the background; null before the first count. */
  readonly eventsBehind: number | null;
  readonly eventsBehindCapped: boolean;
  readonly checkpoint: Position;
  readonly elapsedMs: number;
}

export interface RebuildOptions {
  pool: Pool;
  store: EventStore;
  projection: Projection;
  onProgress?: (progress: RebuildProgress) => void;
  logger?: Logger;
  /** Events per read and per transaction while replaying. Default 10,000. */
  batchSize?: number;
  /** Least time between two onProgress calls (phase changes always report). Default 1 s. */
  progressIntervalMs?: number;
  lagCap?: number;
  /** Aborting stops between batches; the building generation is kept and the next rebuild resumes it. */
  signal?: AbortSignal;
}

export interface RebuildResult {
  readonly name: string;
  readonly generation: number;
  readonly previousGeneration: number;
  readonly resumed: boolean;
  readonly eventsProcessed: number;
  readonly durationMs: number;
  readonly eventsPerSecond: number;
}

/**
 * Blue/green rebuild. Generation N+1 is built into its own tables from the
 * start of the log while N keeps serving (and keeps being written by the
 * worker); secondary indexes are added after the bulk load; then one
 * transaction applies the last events, points the views at N+1 and marks it
 * live and N retired. N's tables are dropped after that commit; a writer
 * still finishing a batch on them fails its compare-and-set and switches.
 * Handlers are pure, so replaying has no side effects to suppress.
 */
export async function rebuildProjection(options: RebuildOptions): Promise<RebuildResult> {
  const { pool, store, projection } = options;
  const { name } = projection;
  const log = (options.logger ?? silentLogger()).child({ projection: name });
  const batchSize = options.batchSize ?? 10_000;
  const interval = options.progressIntervalMs ?? 1_000;
  const cap = options.lagCap ?? DEFAULT_LAG_CAP;
  const readTypes = projection.eventTypes ? { eventTypes: projection.eventTypes } : {};

  const client = await pool.connect();
  let broken: Error | undefined;
  client.on('error', (err) => {
    broken = err;
  });
  const rebuildLock = rebuildLockKey(name);
  let heldRebuild = false;
  let heldWriter: ReturnType<typeof writerLockKey> | undefined;
  let counting: Promise<void> | undefined;
  try {
    heldRebuild = await tryAdvisoryLock(client, rebuildLock);
    if (!heldRebuild) throw new ProjectionBusyError(`a rebuild of projection ${name} is already running`);
    await ensureProjection(pool, projection, { logger: options.logger ?? silentLogger() });
    const target = await prepareGeneration(client, projection);
    const { generation } = target;
    heldWriter = writerLockKey(name, generation);
    if (!(await tryAdvisoryLock(client, heldWriter))) {
      heldWriter = undefined;
      throw new ProjectionBusyError(`projection ${name} generation ${generation} is being written elsewhere`);
    }
    log.info(
      { generation, resumed: target.resumed, checkpoint: String(target.checkpoint.commit) },
      'rebuild',
    );

    const started = performance.now();
    let replayed = 0;
    let behind: number | null = null;
    let lastCount = -Infinity;
    let lastReport = -Infinity;
    const refreshBehind = (): void => {
      if (counting || performance.now() - lastCount < interval) return;
      lastCount = performance.now();
      counting = store
        .countAfter(target.checkpoint, projection.eventTypes, cap)
        .then((n) => {
          behind = n;
        })
        .catch((err: unknown) => log.debug({ err }, 'lag count failed'))
        .finally(() => {
          counting = undefined;
        });
    };
    const emit = (phase: RebuildProgress['phase'], now: number): void => {
      lastReport = now;
      const elapsedMs = now - started;
      options.onProgress?.({
        name,
        generation,
        phase,
        eventsProcessed: target.eventsProcessed,
        eventsPerSecond: elapsedMs > 0 ? Math.round((replayed * 1000) / elapsedMs) : 0,
        eventsBehind: behind,
        eventsBehindCapped: behind !== null && behind >= cap,
        checkpoint: target.checkpoint,
        elapsedMs,
      });
    };
    /** Between batches: throttled, with the lag counted in the background. */
    const report = (phase: RebuildProgress['phase']): void => {
      refreshBehind();
      const now = performance.now();
      if (options.onProgress && now - lastReport >= interval) emit(phase, now);
    };
    /** At a phase change: always, with a fresh count. */
    const reportPhase = async (phase: RebuildProgress['phase']): Promise<void> => {
      if (!options.onProgress) return;
      await counting;
      behind = await store.countAfter(target.checkpoint, projection.eventTypes, cap);
      emit(phase, performance.now());
    };

    // A generation this run started holds only rows this run writes: keys it never wrote are not loaded.
    const written = target.resumed ? undefined : new WrittenKeys();
    const apply = async ({ events, plan }: ReadBatch) => {
      const status = 'building' as const;
      const result = await applyBatch(
        client,
        projection,
        { generation, status, checkpoint: target.checkpoint, ...(written && { written }) },
        events,
        plan,
      );
      target.checkpoint = result.checkpoint;
      target.eventsProcessed += result.applied;
      replayed += result.applied;
    };
    /**
     * A batch, planned (parsed, validated, keyed) as soon as it arrives, in slices: while the batch
     * before it is being written, when this process would otherwise wait for PostgreSQL, without
     * holding up that batch's next statement for a whole batch's planning.
     */
    const read = async (after: Position): Promise<ReadBatch> => {
      const events = await store.readAll({ after, maxCount: batchSize, ...readTypes });
      const planner = batchPlanner(projection, after);
      try {
        for (let from = 0; from < events.length; from += PLAN_SLICE) {
          if (from > 0) await setImmediate();
          planner.add(events, from, Math.min(events.length, from + PLAN_SLICE));
        }
      } catch {
        // A poison event: applyBatch plans again and throws, after the batches before it are applied.
        return { events, plan: undefined };
      }
      return { events, plan: planner.plan };
    };

    /** Replays until a batch comes back short (near the head), reading the next batch while applying one. */
    const catchUp = async (phase: RebuildProgress['phase']) => {
      let pending = read(target.checkpoint);
      for (;;) {
        options.signal?.throwIfAborted();
        const batch = await pending;
        const { events } = batch;
        if (events.length === 0) return;
        const full = events.length >= batchSize;
        const last = events.at(-1);
        if (full && last) {
          pending = read(last.position);
          pending.catch(() => {}); // awaited next turn; this only keeps it from counting as unhandled
        }
        await inTransaction(client, () => apply(batch));
        report(phase);
        if (!full) return;
      }
    };

    const previousGeneration = await recordingFailure(client, name, generation, async () => {
      await reportPhase('replaying');
      await catchUp('replaying');
      await reportPhase('indexing');
      await buildIndexes(pool, client, projection, generation);
      await catchUp('indexing');
      await reportPhase('swapping');
      return inTransaction(client, async () => {
        await lockRegistryEntry(client, name);
        // Once this transaction has written (its first batch), appends that start
        // later stay invisible to readAll until it commits, so this loop ends.
        for (;;) {
          const batch = await read(target.checkpoint);
          if (batch.events.length === 0) break;
          await apply(batch);
        }
        return swapGeneration(client, projection, generation);
      });
    });
    await advisoryUnlock(client, heldWriter);
    heldWriter = undefined;
    const durationMs = performance.now() - started;
    log.info({ generation, previousGeneration, events: target.eventsProcessed, durationMs }, 'rebuild live');
    await dropRetiredTables(client, name, log);
    await reportPhase('done');
    return {
      name,
      generation,
      previousGeneration,
      resumed: target.resumed,
      eventsProcessed: target.eventsProcessed,
      durationMs,
      eventsPerSecond: durationMs > 0 ? Math.round((replayed * 1000) / durationMs) : 0,
    };
  } finally {
    await counting;
    if (!broken && heldWriter) await advisoryUnlock(client, heldWriter).catch(() => {});
    if (!broken && heldRebuild) await advisoryUnlock(client, rebuildLock).catch(() => {});
    client.release(broken);
  }
}

/** A poison event stops the rebuild; the building generation shows it in status. */
async function recordingFailure<T>(
  client: PoolClient,
  name: string,
  generation: number,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ProjectionHandlerError) {
      const failure = { error: err.message, eventId: err.eventId, eventType: err.eventType };
      await recordFailure(client, name, generation, failure).catch(() => {});
    }
    throw err;
  }
}
