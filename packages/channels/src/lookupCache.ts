/** Entries kept per process (least recently loaded dropped first). */
const MAX_CACHED = 10_000;

export interface LookupCache {
  /** `load()`'s promise, kept for the cache's span when it finds something (null or a failure: not kept). */
  cached<T>(key: string, load: () => Promise<T | null>): Promise<T | null>;
  /** `write` wrapped so that every entry is forgotten before and after it runs. */
  forgetting<A extends unknown[], R>(write: (...args: A) => Promise<R>): (...args: A) => Promise<R>;
}

/**
 * A per-process cache of store lookups (connections, webhook subscriptions): found values are kept
 * for `ttlMs`, a miss or a failure is not, and any write through the same store forgets everything,
 * so this process sees its own changes at once and another process's within `ttlMs`
 * (docs/decisions.md "Connection lookups cached per process").
 */
export function createLookupCache(options: { ttlMs: number; now?: () => number; max?: number }): LookupCache {
  const now = options.now ?? Date.now;
  const max = options.max ?? MAX_CACHED;
  const entries = new Map<string, { until: number; value: Promise<unknown> }>();
  return {
    cached<T>(key: string, load: () => Promise<T | null>): Promise<T | null> {
      const hit = entries.get(key);
      if (hit !== undefined && hit.until > now()) return hit.value as Promise<T | null>;
      const value = load();
      const entry = { until: now() + options.ttlMs, value };
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > max) entries.delete(entries.keys().next().value as string);
      const forget = () => {
        if (entries.get(key) === entry) entries.delete(key);
      };
      value.then((found) => (found === null ? forget() : undefined), forget);
      return value;
    },
    forgetting:
      <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        entries.clear();
        try {
          return await write(...args);
        } finally {
          entries.clear();
        }
      },
  };
}
