import { describe, expect, it } from 'vitest';
import { createPageCache, pageCacheKey } from './pageCache.js';

describe('createPageCache', () => {
  it('gives a page back only at the position it was read at, and forgets it at another', () => {
    const cache = createPageCache();
    cache.set('k', '1@10/10', '{"total":1}');
    expect(cache.get('k', '1@10/10')).toBe('{"total":1}');
    expect(cache.get('k', '1@11/11')).toBeUndefined();
    // Gone for good: the old position does not bring it back.
    expect(cache.get('k', '1@10/10')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps within its byte budget, dropping the least recently used pages', () => {
    const cache = createPageCache({ maxBytes: 10_000 });
    for (let i = 0; i < 10; i++) cache.set(`k${i}`, 'p', 'x'.repeat(2_000));
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.get('k9', 'p')).toBeDefined();
    expect(cache.get('k0', 'p')).toBeUndefined();
  });

  it('keys filters by route and content, dates as ISO text', () => {
    const a = pageCacheKey('sessions', { projectId: 'p', from: new Date('2026-01-01T00:00:00Z') });
    expect(a).toBe('sessions {"projectId":"p","from":"2026-01-01T00:00:00.000Z"}');
    expect(pageCacheKey('llm-ledger', { projectId: 'p' })).not.toBe(
      pageCacheKey('sessions', { projectId: 'p' }),
    );
  });
});
