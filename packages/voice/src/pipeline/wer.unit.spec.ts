import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wordErrorRate, wordErrors, wordsOf } from './wer.js';

describe('word error rate', () => {
  it('normalises case and punctuation', () => {
    expect(wordsOf("What's the Weather, in PARIS?")).toEqual(["what's", 'the', 'weather', 'in', 'paris']);
    expect(wordsOf('  -- ')).toEqual([]);
  });

  it('counts substitutions, deletions and insertions', () => {
    const ref = wordsOf('what is the weather in paris');
    expect(wordErrors(ref, wordsOf('what is the weather in paris'))).toBe(0);
    expect(wordErrors(ref, wordsOf('what a good way'))).toBe(5); // 3 substituted, 2 deleted
    expect(wordErrors(ref, wordsOf('what is the weather in paris today'))).toBe(1);
    expect(wordErrors(ref, [])).toBe(6);
    expect(
      wordErrorRate([
        { reference: 'what is the weather in paris', hypothesis: 'what a good way' },
        { reference: 'please cancel my order', hypothesis: 'please cancel my order' },
      ]),
    ).toBeCloseTo(5 / 10);
    expect(wordErrorRate([])).toBe(0);
  });

  it('is a distance: zero on itself, symmetric, bounded by the longer length and the triangle', () => {
    const words = fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 8 });
    fc.assert(
      fc.property(words, words, words, (x, y, z) => {
        expect(wordErrors(x, x)).toBe(0);
        expect(wordErrors(x, y)).toBe(wordErrors(y, x));
        expect(wordErrors(x, y)).toBeLessThanOrEqual(Math.max(x.length, y.length));
        expect(wordErrors(x, y)).toBeGreaterThanOrEqual(Math.abs(x.length - y.length));
        expect(wordErrors(x, z)).toBeLessThanOrEqual(wordErrors(x, y) + wordErrors(y, z));
      }),
    );
  });
});
