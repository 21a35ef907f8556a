import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeAction, encodeAction, headerValue, splitText, truncate, truncateBytes } from './shared.js';

describe('adapter helpers', () => {
  it('splitText cuts at a line break in the second half of the window before a later space', () => {
    expect(splitText('123456\n89 1234', 10)).toEqual(['123456', '89 1234']);
    // A line break in the first half would leave a short chunk: the last space wins then.
    expect(splitText('12\n456 89 1234', 10)).toEqual(['12\n456 89', '1234']);
    expect(splitText('1234567890abc', 10)).toEqual(['1234567890', 'abc']);
  });

  it('splitText keeps every chunk within the limit and loses only break whitespace (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.integer({ min: 2, max: 500 }), (text, max) => {
        const chunks = splitText(text, max);
        for (const c of chunks) expect(Array.from(c).length).toBeLessThanOrEqual(max);
        expect(chunks.join('').replace(/[\n ]/g, '')).toBe(text.replace(/[\n ]/g, ''));
      }),
    );
  });

  it('truncate and truncateBytes respect their limits (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.integer({ min: 0, max: 100 }),
        (text, max) => {
          expect(Array.from(truncate(text, max)).length).toBeLessThanOrEqual(max);
          expect(Buffer.byteLength(truncateBytes(text, max))).toBeLessThanOrEqual(max);
          if (Array.from(text).length <= max) expect(truncate(text, max)).toBe(text);
        },
      ),
    );
  });

  it('encodeAction round-trips through decodeAction when the pair fits (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (id, value) => {
          fc.pre(!id.startsWith('['));
          const encoded = encodeAction(
            id,
            value,
            () => true,
            (s) => s,
          );
          expect(decodeAction(encoded)).toEqual({ actionId: id, value });
        },
      ),
    );
  });

  it('reads headers case-insensitively', () => {
    expect(headerValue({ 'X-Thing': ['a', 'b'] }, 'x-thing')).toBe('a');
    expect(headerValue({}, 'x-thing')).toBeUndefined();
  });
});
