import { decide, type RateLimiter } from './rateLimiter.js';

export interface InProcessRateLimiterOptions {
  /** Most keys held at once (default 10,000); memory stays bounded whatever the key space. */
  maxKeys?: number;
  now?: () => number;
}

/** A key's admitted requests, oldest first; `head` is the first one still in the window. */
interface Log {
  times: number[];
  head: number;
}

/** Drops the admitted requests at or before `since`; compacts once most of the array is dead. */
function prune(log: Log, since: number): void {
  while (log.head < log.times.length && (log.times[log.head] as number) <= since) log.head += 1;
  if (log.head > 64 && log.head * 2 > log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
}

/**
 * The rate limiter of a single process (REDIS_URL unset, or Redis away), with the Redis
 * implementation's semantics (rateLimiter.ts). A key holds at most `limit` timestamps. When
 * `maxKeys` keys are live, keys whose window is empty are swept; if none is, the key admitted least
 * recently is dropped, which can only let that key through early (fail open), never block a caller
 * wrongly.
 */
export function createInProcessRateLimiter(options: InProcessRateLimiterOptions = {}): RateLimiter {
  const maxKeys = options.maxKeys ?? 10_000;
  const now = options.now ?? Date.now;
  const logs = new Map<string, Log & { windowMs: number }>();

  function makeRoom(at: number): void {
    for (const [key, log] of logs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || newest <= at - log.windowMs) logs.delete(key);
    }
    while (logs.size >= maxKeys) {
      const oldest = logs.keys().next();
      if (oldest.done) break;
      logs.delete(oldest.value);
    }
  }

  return {
    async consume(key, limit, windowMs) {
      const at = now();
      let log = logs.get(key);
      if (log === undefined) {
        if (logs.size >= maxKeys) makeRoom(at);
        log = { times: [], head: 0, windowMs };
      }
      log.windowMs = windowMs;
      prune(log, at - windowMs);
      const count = log.times.length - log.head;
      const allowed = count < limit;
      if (allowed) log.times.push(at);
      // Re-inserted so Map order stays least-recently-admitted first for eviction.
      if (allowed || !logs.has(key)) {
        logs.delete(key);
        logs.set(key, log);
      }
      const oldest = log.times[log.head] ?? at;
      return decide(allowed, allowed ? count + 1 : count, limit, oldest + windowMs);
    },
  };
}
