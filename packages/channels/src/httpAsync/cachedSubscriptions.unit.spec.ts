import { describe, expect, it } from 'vitest';
import { cachedSubscriptionStore } from './cachedSubscriptions.js';
import type { SubscriptionStore, WebhookSubscription } from './subscriptionStore.js';

const subscription = (id: string, status: 'active' | 'paused') =>
  ({ id, projectId: 'p', status }) as unknown as WebhookSubscription;

/** A store whose subscriptions are a map, counting the reads. */
function fakeStore() {
  const rows = new Map<string, WebhookSubscription>();
  const reads = { n: 0 };
  const store = {
    async get(_projectId: string, id: string) {
      reads.n += 1;
      return rows.get(id) ?? null;
    },
    async update(_projectId: string, id: string) {
      rows.set(id, subscription(id, 'paused'));
      return rows.get(id);
    },
  } as unknown as SubscriptionStore;
  return { rows, reads, store };
}

describe('cachedSubscriptionStore', () => {
  it('reads a found subscription once per TTL', async () => {
    const { rows, reads, store } = fakeStore();
    rows.set('s1', subscription('s1', 'active'));
    let now = 0;
    const cached = cachedSubscriptionStore(store, { ttlMs: 1_000, now: () => now });
    await cached.get('p', 's1');
    await cached.get('p', 's1');
    expect(reads.n).toBe(1);
    now = 1_000;
    await cached.get('p', 's1');
    expect(reads.n).toBe(2);
  });

  it('keeps no miss, and forgets everything on a write through it (a pause applies at once)', async () => {
    const { rows, store } = fakeStore();
    const cached = cachedSubscriptionStore(store, { ttlMs: 60_000, now: () => 0 });
    expect(await cached.get('p', 's2')).toBeNull();
    rows.set('s2', subscription('s2', 'active'));
    expect((await cached.get('p', 's2'))?.status).toBe('active');
    await cached.update('p', 's2', {} as never);
    expect((await cached.get('p', 's2'))?.status).toBe('paused');
  });
});
