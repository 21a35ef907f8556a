import { HttpError } from '../errors/httpError.js';

export interface ExecutionQueueOptions {
  /** Work items running at once. */
  concurrency: number;
  /** Items that may wait for a free slot; one more is refused with 429 QUEUE_FULL. */
  depth: number;
}

export interface ExecutionQueueStats {
  active: number;
  waiting: number;
  /** The most items seen running at once, and waiting at once, since the queue was made. */
  maxActive: number;
  maxWaiting: number;
  refused: number;
}

export interface ExecutionQueue {
  /**
   * Runs `fn` when a slot is free: at once, or after waiting in line. A full line refuses at once
   * with 429 QUEUE_FULL and a Retry-After (spec 000 §7). A `signal` that aborts while waiting takes
   * the item out of the line and rejects with its reason.
   */
  run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  stats(): ExecutionQueueStats;
}

/** The first estimate of how long an item runs, before any has finished. */
const FIRST_ESTIMATE_MS = 1_000;
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

/** 429 QUEUE_FULL (spec 000 §7): the standard envelope with `retryAfterMs`, and Retry-After. */
export function queueFull(retryAfterMs: number): HttpError {
  return new HttpError('QUEUE_FULL', 429, 'The execution queue is full: retry after retryAfterMs', {
    retryAfterMs: Math.ceil(retryAfterMs),
  });
}

/**
 * A bounded execution queue in one process: `concurrency` items run, `depth` wait, the next is
 * refused. The Retry-After it suggests is the time the line ahead needs at the recent pace (an
 * exponential average of the items' durations), between 1 s and 60 s.
 */
export function createExecutionQueue(options: ExecutionQueueOptions): ExecutionQueue {
  const concurrency = Math.max(1, options.concurrency);
  const depth = Math.max(0, options.depth);
  const line: Array<{
    start: () => void;
    signal?: AbortSignal | undefined;
    cancel: (reason: unknown) => void;
  }> = [];
  const stats: ExecutionQueueStats = { active: 0, waiting: 0, maxActive: 0, maxWaiting: 0, refused: 0 };
  let averageMs = FIRST_ESTIMATE_MS;

  const next = () => {
    while (stats.active < concurrency && line.length > 0) {
      const item = line.shift()!;
      stats.waiting = line.length;
      item.start();
    }
  };

  async function runNow<T>(fn: () => Promise<T>): Promise<T> {
    stats.active += 1;
    stats.maxActive = Math.max(stats.maxActive, stats.active);
    const started = performance.now();
    try {
      return await fn();
    } finally {
      averageMs = 0.8 * averageMs + 0.2 * (performance.now() - started);
      stats.active -= 1;
      next();
    }
  }

  return {
    run(fn, signal) {
      if (stats.active < concurrency && line.length === 0) return runNow(fn);
      if (line.length >= depth) {
        stats.refused += 1;
        const ahead = line.length + 1;
        throw queueFull(Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, (averageMs * ahead) / concurrency)));
      }
      signal?.throwIfAborted();
      return new Promise((resolve, reject) => {
        const item = {
          signal,
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            runNow(fn).then(resolve, reject);
          },
          cancel: reject,
        };
        const onAbort = () => {
          const at = line.indexOf(item);
          if (at >= 0) line.splice(at, 1);
          stats.waiting = line.length;
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        line.push(item);
        stats.waiting = line.length;
        stats.maxWaiting = Math.max(stats.maxWaiting, stats.waiting);
      });
    },
    stats: () => ({ ...stats }),
  };
}
