import { describe, expect, it } from 'vitest';
import { mediaTokenStoreContract } from '../testing/mediaTokenStoreContract.js';
import { createInProcessMediaTokenStore } from './inProcessMediaTokenStore.js';

mediaTokenStoreContract('in-process', () => {
  let offset = 0;
  const store = createInProcessMediaTokenStore({ now: () => Date.now() + offset });
  return { store, advance: (ms) => (offset += ms) };
});

describe('in-process media token store', () => {
  it('forgets every token on close', async () => {
    const store = createInProcessMediaTokenStore();
    const ids = { projectId: 'p', recordingId: 'r', objectIndex: 0 };
    const { token } = await store.issue(ids, 60);
    await store.close();
    expect(await store.verify(token, ids)).toBeNull();
  });

  it('hands out copies: changing returned claims changes nothing stored', async () => {
    const store = createInProcessMediaTokenStore();
    const ids = { projectId: 'p', recordingId: 'r', objectIndex: 0 };
    const { token, expiresAt } = await store.issue(ids, 60);
    const claims = await store.verify(token, ids);
    claims!.expiresAt.setTime(0);
    expect((await store.verify(token, ids))?.expiresAt).toEqual(expiresAt);
  });
});

describe('in-process media token store memory', () => {
  it('drops expired tokens when new ones are issued', async () => {
    let t = 1_000_000;
    const store = createInProcessMediaTokenStore({ now: () => t });
    const ids = { projectId: 'p', recordingId: 'r', objectIndex: 0 };
    const old = await store.issue(ids, 1);
    t += 5_000;
    await store.issue(ids, 60);
    // Going back in time shows the old token is really gone, not just rejected as expired.
    t -= 5_000;
    expect(await store.verify(old.token, ids)).toBeNull();
  });
});
