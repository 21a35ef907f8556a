import type { ResolvedConnection } from '../types.js';
import type { ConnectionStore } from './store.js';

/** How long a process trusts a connection it resolved (the API key cache's span). */
export const CONNECTION_CACHE_TTL_MS = 5_000;
/** Connections kept per process (least recently resolved dropped first). */
const MAX_CACHED = 10_000;

/**
 * The store with the webhook and worker lookups (`resolve`, `resolveById`) cached for `ttlMs`:
 * each webhook and each job otherwise reads the connection's row and decrypts its credentials again.
 * Only found connections are kept (a new one is found at once); any write through this store
 * forgets them all, so this process sees its own changes at once. A change made by another process
 * (another API instance, the CLI) applies here within `ttlMs`, as a revoked API key does
 * (docs/decisions.md "Connection lookups cached per process").
 */
export function cachedConnectionStore(
  store: ConnectionStore,
  options: { ttlMs?: number; now?: () => number } = {},
): ConnectionStore {
  const ttlMs = options.ttlMs ?? CONNECTION_CACHE_TTL_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { until: number; connection: Promise<ResolvedConnection | null> }>();
  const cached = (key: string, load: () => Promise<ResolvedConnection | null>) => {
    const hit = entries.get(key);
    if (hit !== undefined && hit.until > now()) return hit.connection;
    const connection = load();
    const entry = { until: now() + ttlMs, connection };
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > MAX_CACHED) entries.delete(entries.keys().next().value as string);
    // Not found (or failed): not kept.
    connection.then(
      (found) => {
        if (found === null && entries.get(key) === entry) entries.delete(key);
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return connection;
  };
  const forgetting =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      entries.clear();
      try {
        return await write(...args);
      } finally {
        entries.clear();
      }
    };
  return {
    ...store,
    resolve: (channelType, externalIdentifier) =>
      cached(JSON.stringify(['type', channelType, externalIdentifier]), () =>
        store.resolve(channelType, externalIdentifier),
      ),
    resolveById: (id) => cached(JSON.stringify(['id', id]), () => store.resolveById(id)),
    create: forgetting(store.create),
    update: forgetting(store.update),
    delete: forgetting(store.delete),
    recordSendFailure: forgetting(store.recordSendFailure),
    rotateCredentials: forgetting(store.rotateCredentials),
  };
}
