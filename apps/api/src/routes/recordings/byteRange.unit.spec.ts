import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRange } from './byteRange.js';

describe('parseRange (RFC 9110 §14, one range)', () => {
  it('reads first-last, open-ended and suffix ranges, clamped to the object', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ kind: 'range', range: { start: 0, end: 99 } });
    expect(parseRange('bytes=500-', 1000)).toEqual({ kind: 'range', range: { start: 500, end: 999 } });
    expect(parseRange('bytes=-100', 1000)).toEqual({ kind: 'range', range: { start: 900, end: 999 } });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ kind: 'range', range: { start: 0, end: 999 } });
    expect(parseRange('bytes=990-5000', 1000)).toEqual({ kind: 'range', range: { start: 990, end: 999 } });
    expect(parseRange('Bytes = 1 - 2', 10)).toEqual({ kind: 'range', range: { start: 1, end: 2 } });
  });

  it('answers unsatisfiable past the end or for a zero suffix', () => {
    expect(parseRange('bytes=1000-', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=2000-3000', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores what it does not serve: no header, other units, several ranges, garbage', () => {
    for (const header of [undefined, '', 'items=0-1', 'bytes=0-1,5-6', 'bytes=-', 'bytes=5-1', 'bytes=a-b']) {
      expect(parseRange(header, 1000)).toEqual({ kind: 'full' });
    }
    expect(parseRange(['bytes=0-1', 'bytes=2-3'], 1000)).toEqual({ kind: 'full' });
    expect(parseRange(`bytes=${'9'.repeat(40)}-`, 1000)).toEqual({ kind: 'full' });
  });

  it('never throws and always gives a range inside the object', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.tuple(fc.option(fc.nat()), fc.option(fc.nat())).map(([a, b]) => `bytes=${a ?? ''}-${b ?? ''}`),
        ),
        fc.nat({ max: 10_000_000 }),
        (header, size) => {
          const result = parseRange(header, size);
          if (result.kind === 'range') {
            expect(result.range.start).toBeGreaterThanOrEqual(0);
            expect(result.range.start).toBeLessThanOrEqual(result.range.end);
            expect(result.range.end).toBeLessThan(size);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
