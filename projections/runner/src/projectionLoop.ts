import type { EventStore, Position } from '@parley/eventstore';
import { isConnectionError, type Logger, type Pool } from '@parley/platform';
import { applyLiveBatch } from './applyLiveBatch.js';
import type { Projection } from './defineProjection.js';
import { ensureProjection } from './ensureProjection.js';
import { CheckpointConflictError, ProjectionHandlerError } from './errors.js';
import type { Lease, LockHolder } from './lockHolder.js';
import {
  generationStatus,
  matchesDefinition,
  readGeneration,
  readRegistry,
  recordFailure,
  writerLockKey,
} from './registry.js';
import type { Waker } from './waker.js';

export interface BatchApplied {
  readonly projection: string;
  readonly generation: number;
  /** Events folded (of the projection's types). */
  readonly events: number;
  readonly checkpoint: Position;
  readonly durationMs: number;
}

export interface LoopContext {
  readonly pool: Pool;
  readonly store: EventStore;
  readonly logger: Logger;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  /** How often a loop that cannot run (lock held elsewhere, rebuild required, failed) looks again. */
  readonly idleCheckMs: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly locks: LockHolder;
  readonly waker: Waker;
  readonly onBatchApplied: ((batch: BatchApplied) => void) | undefined;
  stopping(): boolean;
  /** Resolves after ms, or at once when the runner stops. */
  sleep(ms: number): Promise<void>;
}

/**
 * The longest wait between two attempts while the database is unreachable (a connection-class
 * error): trying to connect costs nothing when it is refused, and the loop must be writing again
 * within moments of the database's return, not after a backoff grown during a long outage.
 */
const CONNECTION_RETRY_MAX_MS = 1_000;

/**
 * After a wake-up whose read found nothing, the next read comes this soon, then twice as late each
 * time (up to the poll interval): the append that woke the loop may not be readable yet, held back
 * by an older transaction still open elsewhere in the cluster (docs/log.md), which sends no wake-up
 * when it ends.
 */
const FIRST_RECHECK_MS = 25;

/** How long an idle loop waits before reading again: soon after a wake-up that found nothing. */
function idleWait(ctx: LoopContext, recheck: number): number {
  return recheck > 0 ? Math.min(ctx.pollIntervalMs, FIRST_RECHECK_MS * 2 ** recheck) : ctx.pollIntervalMs;
}

/** The wait before the next attempt after `err`, and the backoff after that one. */
function afterFailure(ctx: LoopContext, backoff: number, err: unknown): { waitMs: number; next: number } {
  const max = isConnectionError(err)
    ? Math.min(CONNECTION_RETRY_MAX_MS, ctx.backoff.maxMs)
    : ctx.backoff.maxMs;
  const waitMs = Math.min(backoff, max);
  return { waitMs, next: Math.min(waitMs * 2, max) };
}

/** Connection-class failures are logged once per outage at warn (then at debug); others each time. */
function logFailure(log: Logger, err: unknown, streak: number, fields: object, message: string): void {
  if (!isConnectionError(err) || streak === 1) log.warn({ err, ...fields }, message);
  else log.debug({ err, streak, ...fields }, message);
}

/**
 * One projection in one runner: find the live generation, take its writer
 * lock, write it until it stops being live (a rebuild swapped) or the runner
 * stops; then start over. A definition that differs from the live
 * generation's waits for a rebuild instead of writing old tables with new
 * handlers.
 */
export async function runProjectionLoop(ctx: LoopContext, projection: Projection): Promise<void> {
  const { name } = projection;
  const log = ctx.logger.child({ projection: name });
  let warnedMismatch = false;
  let backoff = ctx.backoff.initialMs;
  let streak = 0;
  while (!ctx.stopping()) {
    try {
      const registered = await readRegistry(ctx.pool, name);
      if (!registered) {
        await ensureProjection(ctx.pool, projection, { logger: ctx.logger });
        continue;
      }
      const generation = registered.liveGeneration;
      if (!matchesDefinition(registered, projection)) {
        if (!warnedMismatch) {
          log.warn(
            { generation, registeredVersion: registered.version, codeVersion: projection.version },
            'definition differs from the live generation; waiting for a rebuild to go live',
          );
          warnedMismatch = true;
        }
        await ctx.sleep(ctx.idleCheckMs);
        continue;
      }
      warnedMismatch = false;
      const lease = await ctx.locks.tryLock(writerLockKey(name, generation));
      if (!lease) {
        await ctx.sleep(ctx.idleCheckMs);
        continue;
      }
      try {
        log.info({ generation }, 'writing projection');
        await runGeneration(ctx, projection, generation, lease, log);
      } finally {
        await lease.release();
      }
      backoff = ctx.backoff.initialMs;
      streak = 0;
    } catch (err) {
      streak += 1;
      const { waitMs, next } = afterFailure(ctx, backoff, err);
      logFailure(log, err, streak, { retryInMs: waitMs }, 'projection loop failed; retrying');
      await ctx.sleep(waitMs);
      backoff = next;
    }
  }
}

async function runGeneration(
  ctx: LoopContext,
  projection: Projection,
  generation: number,
  lease: Lease,
  log: Logger,
): Promise<void> {
  const { name } = projection;
  const start = await readGeneration(ctx.pool, name, generation);
  if (start?.status !== 'live') return;
  let checkpoint = start.checkpoint;
  let backoff = ctx.backoff.initialMs;
  let streak = 0;
  let failed = false;
  // Rechecks since the last wake-up (or batch) whose next read found nothing (0: none pending).
  let recheck = 0;
  let woken = false;
  const stillLive = async () => (await generationStatus(ctx.pool, name, generation)) === 'live';
  const readOptions = {
    maxCount: ctx.batchSize,
    ...(projection.eventTypes ? { eventTypes: projection.eventTypes } : {}),
  };

  while (!ctx.stopping() && !lease.lost) {
    if (failed) {
      // Stopped on a poison event: retrying gives the same error (handlers are
      // pure). Only a restart (new code) or a swap to another generation moves on.
      await ctx.sleep(ctx.idleCheckMs);
      if (!(await stillLive())) return;
      continue;
    }
    const seq = ctx.waker.seq;
    try {
      const events = await ctx.store.readAll({ ...readOptions, after: checkpoint });
      if (events.length === 0) {
        if (!(await stillLive())) return;
        recheck = woken ? 1 : recheck > 0 ? recheck + 1 : 0;
        woken = await ctx.waker.wait(idleWait(ctx, recheck), seq, recheck > 0);
        continue;
      }
      // The log grew: if the next read finds nothing, a later append may still be held back.
      recheck = 0;
      woken = true;
      const started = performance.now();
      const target = { generation, status: 'live' as const, checkpoint };
      const result = await applyLiveBatch(ctx.pool, projection, target, events);
      checkpoint = result.checkpoint;
      ctx.waker.poke();
      backoff = ctx.backoff.initialMs;
      streak = 0;
      const durationMs = performance.now() - started;
      log.debug(
        { generation, events: result.applied, upserted: result.upserted, durationMs },
        'batch applied',
      );
      ctx.onBatchApplied?.({ projection: name, generation, events: result.applied, checkpoint, durationMs });
    } catch (err) {
      if (err instanceof CheckpointConflictError) {
        const current = await readGeneration(ctx.pool, name, generation);
        if (current?.status !== 'live') {
          log.info({ generation }, 'generation retired by a rebuild; switching to the live one');
          return;
        }
        checkpoint = current.checkpoint;
        continue;
      }
      if (err instanceof ProjectionHandlerError) {
        log.error(
          { err, generation, eventId: err.eventId, eventType: err.eventType, table: err.table },
          'projection handler failed; projection stopped at this event',
        );
        await recordFailure(ctx.pool, name, generation, {
          error: err.message,
          eventId: err.eventId,
          eventType: err.eventType,
        }).catch((e: unknown) => log.warn({ err: e }, 'could not record the failure'));
        failed = true;
        continue;
      }
      // After a swap the old tables are dropped: a batch still in flight fails
      // on them. That is a switch, not an error.
      if ((await generationStatus(ctx.pool, name, generation).catch(() => 'live')) !== 'live') return;
      streak += 1;
      const { waitMs, next } = afterFailure(ctx, backoff, err);
      logFailure(log, err, streak, { generation, retryInMs: waitMs }, 'projection batch failed; retrying');
      await ctx.sleep(waitMs);
      backoff = next;
    }
  }
}
