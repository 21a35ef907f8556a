import { describe, expect, it } from 'vitest';
import type { ResolvedConnection } from '../types.js';
import { cachedConnectionStore } from './cachedStore.js';
import type { ConnectionStore } from './store.js';

const connection = (id: string, active = true): ResolvedConnection => ({
  id,
  tenantId: 't',
  projectId: 'p',
  channelType: 'whatsapp',
  externalIdentifier: `ext-${id}`,
  agentName: null,
  deploymentId: null,
  active,
  status: active ? 'active' : 'inactive',
  credentials: {},
  settings: {},
});

/** A store whose rows are a map, counting the reads. */
function fakeStore() {
  const rows = new Map<string, ResolvedConnection>();
  const reads = { n: 0 };
  const store = {
    async resolve(_type: string, identifier: string) {
      reads.n += 1;
      return [...rows.values()].find((c) => c.externalIdentifier === identifier) ?? null;
    },
    async resolveById(id: string) {
      reads.n += 1;
      return rows.get(id) ?? null;
    },
    async update(_projectId: string, id: string) {
      rows.set(id, connection(id, false));
      return {} as never;
    },
  } as unknown as ConnectionStore;
  return { rows, reads, store };
}

describe('cachedConnectionStore', () => {
  it('reads a found connection once per TTL, by identifier and by id', async () => {
    const { rows, reads, store } = fakeStore();
    rows.set('c1', connection('c1'));
    let now = 0;
    const cached = cachedConnectionStore(store, { ttlMs: 1_000, now: () => now });
    expect(await cached.resolve('whatsapp', 'ext-c1')).toEqual(connection('c1'));
    expect(await cached.resolve('whatsapp', 'ext-c1')).toEqual(connection('c1'));
    expect(await cached.resolveById('c1')).toEqual(connection('c1'));
    expect(await cached.resolveById('c1')).toEqual(connection('c1'));
    expect(reads.n).toBe(2);
    now = 1_000;
    await cached.resolveById('c1');
    expect(reads.n).toBe(3);
  });

  it('keeps no miss: a connection created meanwhile is found at once', async () => {
    const { rows, reads, store } = fakeStore();
    const cached = cachedConnectionStore(store, { ttlMs: 60_000, now: () => 0 });
    expect(await cached.resolveById('c2')).toBeNull();
    rows.set('c2', connection('c2'));
    expect(await cached.resolveById('c2')).toEqual(connection('c2'));
    expect(reads.n).toBe(2);
  });

  it('forgets everything on a write through it', async () => {
    const { rows, store } = fakeStore();
    rows.set('c3', connection('c3'));
    const cached = cachedConnectionStore(store, { ttlMs: 60_000, now: () => 0 });
    expect((await cached.resolveById('c3'))?.active).toBe(true);
    await cached.update('p', 'c3', {} as never);
    expect((await cached.resolveById('c3'))?.active).toBe(false);
  });
});
