import { CONNECTION_CACHE_TTL_MS } from '../connections/cachedStore.js';
import type { SubscriptionStore, WebhookSubscription } from './subscriptionStore.js';

/** Subscriptions kept per process (least recently read dropped first). */
const MAX_CACHED = 10_000;

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
  const ttlMs = options.ttlMs ?? CONNECTION_CACHE_TTL_MS;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { until: number; subscription: Promise<WebhookSubscription | null> }>();
  const get = (projectId: string, id: string): Promise<WebhookSubscription | null> => {
    const key = JSON.stringify([projectId, id]);
    const hit = entries.get(key);
    if (hit !== undefined && hit.until > now()) return hit.subscription;
    const subscription = store.get(projectId, id);
    const entry = { until: now() + ttlMs, subscription };
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > MAX_CACHED) entries.delete(entries.keys().next().value as string);
    const forget = () => {
      if (entries.get(key) === entry) entries.delete(key);
    };
    subscription.then((found) => (found === null ? forget() : undefined), forget);
    return subscription;
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
    get,
    create: forgetting(store.create),
    update: forgetting(store.update),
    delete: forgetting(store.delete),
    rotateSecret: forgetting(store.rotateSecret),
    reencryptSecrets: forgetting(store.reencryptSecrets),
  };
}
