import { LRUCache } from 'lru-cache';

/**
 * Serialised analytics pages by (route, filter), each valid only for the read-model position it
 * was read at. A request reads the projection's freshness first (it does anyway, for the
 * `freshness` field); when the cached page's position is that same position, the read model has
 * not changed since the page was read, so the page and its `total` are still exact and are sent
 * as they are, with no query. Any applied batch moves the position and retires every entry of
 * that projection at its next request. Bounded by bytes (pages are at most 1 MiB each).
 */
export interface PageCache {
  get(key: string, position: string | null): string | undefined;
  set(key: string, position: string | null, body: string): void;
  readonly size: number;
}

interface Entry {
  position: string | null;
  body: string;
}

export function createPageCache(options: { maxBytes?: number } = {}): PageCache {
  const cache = new LRUCache<string, Entry>({
    maxSize: options.maxBytes ?? 64 * 1024 * 1024,
    // UTF-16 code units: an upper bound of the UTF-8 bytes for this ASCII-heavy JSON, close enough.
    sizeCalculation: (entry, key) => entry.body.length + key.length + 64,
  });
  return {
    get(key, position) {
      const entry = cache.get(key);
      if (entry === undefined) return undefined;
      if (entry.position !== position) {
        cache.delete(key);
        return undefined;
      }
      return entry.body;
    },
    set(key, position, body) {
      cache.set(key, { position, body });
    },
    get size() {
      return cache.size;
    },
  };
}

/** A cache key for a parsed filter: its JSON (Dates as ISO text), prefixed by the route's name. */
export const pageCacheKey = (route: string, filter: unknown): string => `${route} ${JSON.stringify(filter)}`;
