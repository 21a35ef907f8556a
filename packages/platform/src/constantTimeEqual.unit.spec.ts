import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from './constantTimeEqual.js';

describe('constantTimeEqual', () => {
  it('is string and byte equality, never a throw', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
        expect(constantTimeEqual(Buffer.from(a), Buffer.from(b))).toBe(Buffer.from(a).equals(Buffer.from(b)));
      }),
    );
  });

  it('compares strings by their UTF-8 bytes, and a string with its bytes', () => {
    expect(constantTimeEqual('é', Buffer.from('é', 'utf8'))).toBe(true);
    expect(constantTimeEqual('é', Buffer.from('é', 'latin1'))).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('a', '')).toBe(false);
  });
});
