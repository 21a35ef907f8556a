import { CONNECTION_CACHE_TTL_MS } from '../connections/cachedStore.js';
import { createLookupCache } from '../lookupCache.js';
import type { SubscriptionStore, WebhookSubscription } from './subscriptionStore.js';

/**
 * The store with `get` (the submit's check of the subscription: the key's project's, not paused)
 * cached for `ttlMs`, as connection lookups are (cachedConnectionStore): only found subscriptions
 * are kept, any write through this store forgets them all (a pause through this process applies at
 * once), a change made by another process applies within `ttlMs`.
 */
export function cachedSubscriptionStore(
  store: SubscriptionStore,
  options: { ttlMs?: number; now?: () => number } = {},
): SubscriptionStore {
  const { cached, forgetting } = createLookupCache({
    ttlMs: options.ttlMs ?? CONNECTION_CACHE_TTL_MS,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const get = (projectId: string, id: string): Promise<WebhookSubscription | null> =>
    cached(JSON.stringify([projectId, id]), () => store.get(projectId, id));
  return {
    ...store,
    get,
    create: forgetting(store.create),
    update: forgetting(store.update),
    delete: forgetting(store.delete),
    rotateSecret: forgetting(store.rotateSecret),
    reencryptSecrets: forgetting(store.reencryptSecrets),
  };
}
