import { describe, expect, it } from 'vitest';
import type { MediaTokenStore } from '../tokens/mediaTokenStore.js';

export interface TokenStoreFixture {
  store: MediaTokenStore;
  /** Moves the store's clock forward (fake clock), so expiry needs no waiting. */
  advance(ms: number): void;
}

const ids = { projectId: 'p_contract', recordingId: 'rec_contract', objectIndex: 2 };

/** What every MediaTokenStore must do; run from each implementation's spec file. */
export function mediaTokenStoreContract(name: string, fixture: () => TokenStoreFixture): void {
  describe(`${name} media token store`, () => {
    it('issues 256-bit base64url tokens that verify against their ids', async () => {
      const { store } = fixture();
      const before = Date.now();
      const { token, expiresAt } = await store.issue(ids, 900);
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + 900_000 - 5);
      expect(await store.verify(token, ids)).toEqual({ ...ids, expiresAt });
    });

    it('issues a different token every time', async () => {
      const { store } = fixture();
      const tokens = new Set<string>();
      for (let i = 0; i < 200; i += 1) tokens.add((await store.issue(ids, 60)).token);
      expect(tokens.size).toBe(200);
    });

    it('binds a token to exactly its project, recording and object', async () => {
      const { store } = fixture();
      const { token } = await store.issue(ids, 60);
      expect(await store.verify(token, { ...ids, projectId: 'p_other' })).toBeNull();
      expect(await store.verify(token, { ...ids, recordingId: 'rec_other' })).toBeNull();
      expect(await store.verify(token, { ...ids, objectIndex: 3 })).toBeNull();
      expect(await store.verify(token, ids)).not.toBeNull();
    });

    it('forgets a token once expired', async () => {
      const { store, advance } = fixture();
      const { token } = await store.issue(ids, 60);
      advance(59_000);
      expect(await store.verify(token, ids)).not.toBeNull();
      advance(1_000);
      expect(await store.verify(token, ids)).toBeNull();
    });

    it('knows nothing of unissued, altered or malformed tokens', async () => {
      const { store } = fixture();
      const { token } = await store.issue(ids, 60);
      const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
      for (const candidate of [
        flipped,
        `${token}=`,
        token.slice(1),
        '',
        'x'.repeat(43),
        '../../etc',
        `${token}\n`,
      ]) {
        expect(await store.verify(candidate, ids)).toBeNull();
      }
      expect(await store.verify('A'.repeat(43), ids)).toBeNull();
    });

    it('refuses a TTL that is not a positive whole number of seconds', async () => {
      const { store } = fixture();
      for (const ttl of [0, -5, 1.5, Number.NaN]) {
        await expect(store.issue(ids, ttl)).rejects.toBeInstanceOf(RangeError);
      }
    });
  });
}
