import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDecimal } from './decimal.js';

const sum = (amounts: readonly number[]) => amounts.reduce(addDecimal, '0');

describe('addDecimal', () => {
  it('adds the decimals the amounts are written as, exactly', () => {
    expect(addDecimal('0', 0.1)).toBe('0.1');
    expect(sum([0.1, 0.2])).toBe('0.3');
    expect(sum([1e-7, 2.5e-7])).toBe('0.00000035');
    expect(sum([1e21, 1])).toBe('1000000000000000000001');
    expect(sum([0.5, 0.5])).toBe('1');
    expect(sum([])).toBe('0');
  });

  it('gives the same canonical string in any order', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.double({ min: 0, max: 1e6, noNaN: true }), { maxLength: 12 })
          .chain((a) =>
            fc.tuple(fc.constant(a), fc.shuffledSubarray(a, { minLength: a.length, maxLength: a.length })),
          ),
        ([amounts, shuffled]) => {
          const total = sum(amounts);
          expect(sum(shuffled)).toBe(total);
          expect(total).toMatch(/^\d+(\.\d*[1-9])?$/);
          expect(Math.abs(Number(total) - amounts.reduce((a, b) => a + b, 0))).toBeLessThanOrEqual(
            1e-9 * Math.max(1, Number(total)),
          );
        },
      ),
    );
  });

  it('refuses amounts that are not finite', () => {
    expect(() => addDecimal('0', Number.NaN)).toThrow(RangeError);
  });
});
