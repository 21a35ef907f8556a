import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findUnstorableText,
  isStorableText,
  isUnstorableTextError,
  replaceUnstorableText,
  toStorableText,
} from './storableText.js';

/** Strings mixing ordinary text with NULs, lone surrogates and well-formed pairs. */
const risky = fc
  .array(fc.oneof(fc.string(), fc.constantFrom('\u0000', '\ud800', '\udfff', '\ud83d\ude00', '\ufffd')), {
    maxLength: 6,
  })
  .map((parts) => parts.join(''));

describe('isStorableText', () => {
  it('refuses U+0000 and unpaired surrogates, accepts pairs and everything else', () => {
    expect(isStorableText('hello world')).toBe(true);
    expect(isStorableText('emoji \ud83d\ude00')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\ud800')).toBe(false);
    expect(isStorableText('x\udc00')).toBe(false);
    expect(isStorableText('\udc00\ud800')).toBe(false);
  });

  it('agrees with the UTF-8 round trip for every string without NUL', () => {
    fc.assert(
      fc.property(risky, (text) => {
        const wellFormed = Buffer.from(text, 'utf8').toString('utf8') === text;
        expect(isStorableText(text)).toBe(wellFormed && !text.includes('\u0000'));
      }),
    );
  });

  it('toStorableText always gives storable text, and leaves storable text unchanged', () => {
    fc.assert(
      fc.property(risky, (text) => {
        const stored = toStorableText(text);
        expect(isStorableText(stored)).toBe(true);
        if (isStorableText(text)) expect(stored).toBe(text);
        expect(stored.length).toBe(text.length);
      }),
    );
  });
});

describe('findUnstorableText', () => {
  it('names the path of the first bad value or key, at any depth', () => {
    expect(findUnstorableText({ a: 'ok', b: [1, 'x', { c: 'n\u0000' }] })).toEqual(['b', 2, 'c']);
    expect(findUnstorableText({ 'k\u0000': 1 })).toEqual(['k\u0000']);
    expect(findUnstorableText('\ud800')).toEqual([]);
    expect(findUnstorableText({ a: 1, b: null, c: true, d: ['fine'] })).toBeUndefined();
  });

  it('walks a deeply nested value without overflowing the stack', () => {
    let deep: unknown = 'bad\u0000';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(findUnstorableText(deep)?.length).toBe(100_000);
  });

  it('finds something exactly when some string in the value is unstorable', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(risky, risky, { maxKeys: 3 }), (value, extra) => {
        const holder = { value, extra };
        const strings = (v: unknown): string[] =>
          typeof v === 'string'
            ? [v]
            : typeof v === 'object' && v !== null
              ? Object.entries(v).flatMap(([k, c]) => [...(Array.isArray(v) ? [] : [k]), ...strings(c)])
              : [];
        expect(findUnstorableText(holder) !== undefined).toBe(!strings(holder).every(isStorableText));
      }),
    );
  });
});

describe('replaceUnstorableText', () => {
  it('replaces with U+FFFD and reports the paths; a clean value is returned as is', () => {
    const clean = { a: ['x'] };
    expect(replaceUnstorableText(clean).value).toBe(clean);
    expect(replaceUnstorableText(clean).replaced).toEqual([]);
    const { value, replaced } = replaceUnstorableText({ text: 'hi\u0000', meta: { 'n\ud800': 'a\udc00' } });
    expect(value).toEqual({ text: 'hi\ufffd', meta: { 'n\ufffd': 'a\ufffd' } });
    expect(replaced.sort()).toEqual(['meta.n\ufffd', 'meta.n\ufffd', 'text']);
  });

  it('always leaves nothing unstorable', () => {
    fc.assert(
      fc.property(fc.dictionary(risky, fc.oneof(risky, fc.array(risky))), (value) => {
        expect(findUnstorableText(replaceUnstorableText(value).value)).toBeUndefined();
      }),
    );
  });
});

describe('isUnstorableTextError', () => {
  it('recognises the three PostgreSQL refusals, also as a cause', () => {
    expect(isUnstorableTextError({ code: '22021', message: 'invalid byte sequence' })).toBe(true);
    expect(isUnstorableTextError({ code: '22P05', message: 'unsupported Unicode escape sequence' })).toBe(
      true,
    );
    expect(isUnstorableTextError({ code: '22P02', message: 'invalid input syntax for type json' })).toBe(
      true,
    );
    expect(isUnstorableTextError(new Error('wrapped', { cause: { code: '22021' } }))).toBe(true);
  });

  it('leaves every other error alone', () => {
    expect(isUnstorableTextError({ code: '22P02', message: 'invalid input syntax for type uuid' })).toBe(
      false,
    );
    expect(isUnstorableTextError({ code: '57P01' })).toBe(false);
    expect(isUnstorableTextError(new Error('boom'))).toBe(false);
    expect(isUnstorableTextError(null)).toBe(false);
  });
});
