import { type Position, type RecordedEvent, START, type SubscribeAllOptions } from '../types.js';
import type { WaitOutcome, Wakeups } from './wakeups.js';

export interface SubscribeDeps {
  readBatch(
    after: Position,
    maxCount: number,
    eventTypes: readonly string[] | undefined,
  ): Promise<RecordedEvent[]>;
  wakeups: Wakeups;
  pollIntervalMs: number;
  /** Aborted by the store's close(). */
  closing: AbortSignal;
}

const FIRST_RECHECK_MS = 25;

/**
 * Catch-up in readAll batches, then live: after a partial batch, wait for a
 * wake-up or the poll interval. A wake-up whose read finds nothing means an
 * older transaction (anywhere in the cluster) still holds the settled end of
 * the log back; re-check soon with backoff instead of sleeping a full interval.
 */
export async function* subscribeAll(
  deps: SubscribeDeps,
  options: SubscribeAllOptions = {},
): AsyncGenerator<RecordedEvent> {
  const signal = options.signal ? AbortSignal.any([options.signal, deps.closing]) : deps.closing;
  const batchSize = options.batchSize ?? 1_000;
  let after = options.after ?? START;
  let recheck = 0;
  let lastWait: WaitOutcome = 'timeout';
  while (!signal.aborted) {
    const seen = deps.wakeups.generation();
    const batch = await deps.readBatch(after, batchSize, options.eventTypes);
    for (const event of batch) {
      if (signal.aborted) return;
      yield event;
      after = event.position;
    }
    if (batch.length >= batchSize) continue;
    if (batch.length > 0) recheck = 0;
    else if (lastWait === 'woken') recheck = 1;
    else if (recheck > 0) recheck += 1;
    const delay =
      recheck > 0 ? Math.min(deps.pollIntervalMs, FIRST_RECHECK_MS * 2 ** recheck) : deps.pollIntervalMs;
    lastWait = await deps.wakeups.wait(seen, delay, signal);
  }
}
