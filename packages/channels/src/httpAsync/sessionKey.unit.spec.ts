import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANONICAL_SESSION_KEY_PREFIX, newCanonicalSessionKey } from './jobs.js';
import { classifySessionKey, MAX_CALLER_SESSION_KEY_LENGTH } from './sessionKey.js';

const CONTROL = /[\p{Cc}\p{Cs}]/u;
const codePoints = (s: string): number => [...s].length;

/** Printable characters of every plane (no control characters, no lone surrogates). */
const printable = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 120 })
  .filter((s) => !CONTROL.test(s) && codePoints(s) <= MAX_CALLER_SESSION_KEY_LENGTH);

describe('classifySessionKey', () => {
  it('never throws, and sorts every string into exactly one class', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (key) => {
        const c = classifySessionKey(key);
        expect(['canonical', 'caller', 'invalid']).toContain(c.kind);
        if (c.kind !== 'invalid') expect(c.key).toBe(key);
      }),
    );
  });

  it('reads every issued key as canonical', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^sub_[0-9A-Za-z]{16}$/), (subscriptionId) => {
        const key = newCanonicalSessionKey(subscriptionId);
        expect(key).toMatch(new RegExp(`^ha:${subscriptionId}:[0-9A-Za-z]{22}$`));
        expect(classifySessionKey(key)).toEqual({ kind: 'canonical', key });
      }),
    );
  });

  it('reads anything with the prefix as canonical (never as a caller key), however it looks', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (rest) => {
        const key = `${CANONICAL_SESSION_KEY_PREFIX}${rest}`;
        expect(classifySessionKey(key)).toEqual({ kind: 'canonical', key });
      }),
    );
  });

  it('takes a printable key of 1..256 characters without the prefix as the caller’s, unchanged', () => {
    fc.assert(
      fc.property(printable, (key) => {
        fc.pre(!key.startsWith(CANONICAL_SESSION_KEY_PREFIX));
        expect(classifySessionKey(key)).toEqual({ kind: 'caller', key });
      }),
    );
    const longest = 'é'.repeat(MAX_CALLER_SESSION_KEY_LENGTH);
    expect(classifySessionKey(longest).kind).toBe('caller');
    // Counted in characters, not UTF-16 units: 256 emoji fit.
    expect(classifySessionKey('😀'.repeat(MAX_CALLER_SESSION_KEY_LENGTH)).kind).toBe('caller');
    expect(classifySessionKey('HA:upper-case is not the prefix').kind).toBe('caller');
  });

  it('refuses empty, too long, and keys with control characters or unpaired surrogates', () => {
    expect(classifySessionKey('')).toMatchObject({ kind: 'invalid', reason: 'session_key is empty' });
    expect(classifySessionKey('k'.repeat(MAX_CALLER_SESSION_KEY_LENGTH + 1))).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('longer than 256'),
    });
    fc.assert(
      fc.property(
        // Printable ASCII around the bad character: nothing that could pair with a lone surrogate.
        fc.string({ maxLength: 50 }),
        fc.constantFrom('\u0000', '\n', '\t', '\u001b', '\u007f', '\u0085', '\ud800', '\udfff'),
        fc.string({ maxLength: 50 }),
        (before, bad, after) => {
          const key = `x${before}${bad}${after}`;
          expect(classifySessionKey(key).kind).toBe('invalid');
        },
      ),
    );
  });
});
