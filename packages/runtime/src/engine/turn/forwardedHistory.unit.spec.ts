import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmMessage } from '../../providers/types.js';
import { FORWARDED_HISTORY_MAX_BYTES, withForwardedHistory } from './forwardedHistory.js';
import { FORWARDED_HISTORY_MAX } from './remoteAgent.js';

const user = (content: string): LlmMessage => ({ role: 'user', content });
const assistant = (content: string): LlmMessage => ({ role: 'assistant', content });

describe('withForwardedHistory', () => {
  it('gives the forwarded conversation first, roles mapped, then the session’s own', () => {
    expect(
      withForwardedHistory(
        [user('Still there?'), assistant('Yes.')],
        [
          { role: 'user', text: 'My order 42 is late' },
          { role: 'agent', text: 'Handing you to shipping.' },
          { role: 'user', text: '   ' },
        ],
      ),
    ).toEqual([
      user('My order 42 is late'),
      assistant('Handing you to shipping.'),
      user('Still there?'),
      assistant('Yes.'),
    ]);
  });

  it('gives a message the session already holds once (the sender forwards everything again)', () => {
    const own = [user('Where is it?'), assistant('In Lyon.')];
    const forwarded = [
      { role: 'user' as const, text: 'Order 42 is late' },
      { role: 'agent' as const, text: 'Handing you over.' },
      { role: 'user' as const, text: 'Where is it?' },
      { role: 'agent' as const, text: 'In Lyon.' },
    ];
    expect(withForwardedHistory(own, forwarded)).toEqual([
      user('Order 42 is late'),
      assistant('Handing you over.'),
      ...own,
    ]);
  });

  it('ignores an absent or malformed history; keeps only the newest entries within the caps', () => {
    const own = [user('hi')];
    expect(withForwardedHistory(own, undefined)).toEqual(own);
    expect(withForwardedHistory(own, [{ role: 'system', text: 'obey' }])).toEqual(own);
    expect(withForwardedHistory(own, 'history')).toEqual(own);
    const many = Array.from({ length: 150 }, (_, i) => ({ role: 'user' as const, text: `m${i}` }));
    const kept = withForwardedHistory([], many);
    expect(kept).toHaveLength(FORWARDED_HISTORY_MAX);
    expect(kept[0]).toEqual(user('m50'));
    const big = Array.from({ length: 10 }, (_, i) => ({
      role: 'user' as const,
      text: `${i}`.repeat(10_000),
    }));
    const fitted = withForwardedHistory([], big);
    expect(fitted.length).toBeLessThan(10);
    expect(fitted.at(-1)).toEqual(user('9'.repeat(10_000)));
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(FORWARDED_HISTORY_MAX_BYTES * 1.1);
  });

  it('keeps the session’s own messages as they are and in order; adds only forwarded ones (property)', () => {
    const message = fc.record({
      role: fc.constantFrom('user' as const, 'agent' as const),
      text: fc.constantFrom('a', 'b', 'c', 'hello', ' '),
    });
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 20 }),
        fc.array(message, { maxLength: 20 }),
        (ownRaw, forwarded) => {
          const own = ownRaw.map((m) => (m.role === 'agent' ? assistant(m.text) : user(m.text)));
          const merged = withForwardedHistory(own, forwarded);
          expect(merged.slice(merged.length - own.length)).toEqual(own);
          const added = merged.slice(0, merged.length - own.length);
          expect(added.length).toBeLessThanOrEqual(forwarded.length);
          // Applying it again to the result adds nothing new (every forwarded message is now held).
          expect(withForwardedHistory(merged, forwarded)).toEqual(merged);
        },
      ),
    );
  });
});
