import { createLookupCache } from '../lookupCache.js';
import type { ConnectionStore } from './store.js';

/** How long a process trusts a connection it resolved (the API key cache's span). */
export const CONNECTION_CACHE_TTL_MS = 5_000;

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
  const { cached, forgetting } = createLookupCache({
    ttlMs: options.ttlMs ?? CONNECTION_CACHE_TTL_MS,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
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
