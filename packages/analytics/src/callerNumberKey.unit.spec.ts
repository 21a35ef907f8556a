import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CALLER_NUMBER_KEY_MAX_LENGTH, callerNumberKey } from './callerNumberKey.js';

describe('callerNumberKey examples (spec 000 §4.2 callerNumber rules 1-3)', () => {
  it.each([
    // Rule 1: phone-like values become E.164.
    ['+44 20 7946 0958', '+442079460958'],
    ['+44-20-7946-0958', '+442079460958'],
    ['+44.20.7946.0958', '+442079460958'],
    ['+44/20/7946/0958', '+442079460958'],
    ['+1 (212) 555-1234', '+12125551234'],
    ['(+44) 20 7946 0958', '+442079460958'],
    // Rule 1: national trunk 0 after the country code.
    ['+44 (0)20 7946 0958', '+442079460958'],
    ['+44 (0) 20 7946 0958', '+442079460958'],
    ['+44 020 7946 0958', '+442079460958'],
    ['+49 (0)30 123456', '+4930123456'],
    ['+33 0 1 23 45 67 89', '+33123456789'],
    // ... but not where the 0 belongs to the number.
    ['+39 06 1234 5678', '+390612345678'],
    // Rule 1: invisible characters, fullwidth digits, Unicode dashes.
    ['\u200B+44\u200E 20 7946 0958\uFEFF', '+442079460958'],
    ['＋４４ ２０ ７９４６ ０９５８', '+442079460958'],
    ['+44\u201320\u20117946\u22120958', '+442079460958'],
    ['+44\u00A020\u20037946 0958', '+442079460958'],
    // Rule 1: sip: and tel: URIs give their user part.
    ['sip:+442079460958@sip.example.com', '+442079460958'],
    ['SIP:+44 20 7946 0958@pbx.example;user=phone', '+442079460958'],
    ['<sip:+442079460958@example.com>', '+442079460958'],
    ['sips:+442079460958:secret@example.com', '+442079460958'],
    ['tel:+44-20-7946-0958', '+442079460958'],
    ['tel:+44-20-7946-0958;ext=12', '+442079460958'],
    ['sip:alice@example.com', 'alice'],
    ['sip:@example.com', 'sip:@example.com'],
    // Rule 2: 7 to 15 bare digits are international; an unencoded + arrives as a space.
    ['442079460958', '+442079460958'],
    [' 442079460958', '+442079460958'],
    ['44 20 7946 0958', '+442079460958'],
    ['44 (0)20 7946 0958', '+442079460958'],
    ['1234567', '+1234567'],
    ['123456', '123456'],
    ['12-34', '1234'],
    // Rule 2: national format keeps its digits.
    ['020 7946 0958', '02079460958'],
    ['(020) 7946 0958', '02079460958'],
    ['02079460958', '02079460958'],
    ['(212) 555-1234', '(212)5551234'],
    ['(212)555.1234', '(212)5551234'],
    // Rule 3: no dial-prefix conversion, no country inference.
    ['0044 20 7946 0958', '00442079460958'],
    ['011 44 20 7946 0958', '011442079460958'],
    // Rule 2: other values match as cleaned text.
    ['Anonymous', 'Anonymous'],
    [' Anonymous\u200B ', 'Anonymous'],
    ['softphone.user_42', 'softphone.user_42'],
    ['sdk-9f2c1e', 'sdk-9f2c1e'],
    ['1-800-FLOWERS', '1-800-FLOWERS'],
    ['+44 20 7946 0958 ext 12', '+44 20 7946 0958 ext 12'],
    ['1234567890123456', '1234567890123456'],
    // Rule 3: non-ASCII digits other than fullwidth are not converted.
    ['٠٢٠٧٩٤٦٠٩٥٨', '٠٢٠٧٩٤٦٠٩٥٨'],
    // Rule 3: case-sensitive.
    ['anonymous', 'anonymous'],
  ])('%j → %j', (raw, key) => {
    expect(callerNumberKey(raw)).toBe(key);
  });

  it('truncates keys to 128 characters', () => {
    expect(callerNumberKey('a'.repeat(300))).toBe('a'.repeat(128));
    expect(callerNumberKey(`${'a'.repeat(127)}😀b`)).toBe('a'.repeat(127));
  });

  it('returns an empty key for a value with nothing visible', () => {
    expect(callerNumberKey('\u200B \u200E')).toBe('');
  });
});

/** One international number written in many ways (spacing, dashes, dots, parentheses, URIs). */
const numberVariants = fc
  .record({
    countryCode: fc.constantFrom('1', '7', '33', '44', '49', '61', '91', '353', '972'),
    groups: fc.array(fc.stringMatching(/^[1-9]\d{1,3}$/), { minLength: 2, maxLength: 3 }),
  })
  // Real numbers have 7 or more digits; shorter ones read as short codes when the + is lost.
  .filter(({ countryCode, groups }) => {
    const length = countryCode.length + groups.join('').length;
    return length >= 7 && length <= 15;
  })
  .chain(({ countryCode, groups }) =>
    fc.record({
      canonical: fc.constant(`+${countryCode}${groups.join('')}`),
      written: fc
        .tuple(
          fc.constantFrom(' ', '-', '.', '/', '', ' - ', '\u2013', '\u00A0'),
          fc.boolean(),
          fc.boolean(),
          fc.constantFrom('', 'sip', 'tel', 'sips', 'encodedPlus'),
        )
        .map(([sep, parens, trunk, wrap]) => {
          const [first = '', ...rest] = groups;
          const area = parens ? `(${first})` : first;
          const number = `+${countryCode}${sep}${trunk ? '(0)' : ''}${area}${sep}${rest.join(sep)}`;
          if (wrap === 'sip' || wrap === 'sips')
            return `${wrap}:${number.replace(/\s/g, '')}@pbx.example.com`;
          if (wrap === 'tel') return `tel:${number.replace(/\s/g, '-')}`;
          if (wrap === 'encodedPlus') return number.replace('+', ' ');
          return number;
        }),
    }),
  );

describe('callerNumberKey properties', () => {
  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (raw) => {
        const key = callerNumberKey(raw);
        expect(callerNumberKey(key)).toBe(key);
      }),
      { numRuns: 5000 },
    );
  });

  it('is idempotent on phone-like input', () => {
    const phoneish = fc.string({
      unit: fc.constantFrom(...'+0123456789 ()-./'.split(''), '\u200B', '０', 'sip:', 'tel:', '@x', ';'),
      maxLength: 40,
    });
    fc.assert(
      fc.property(phoneish, (raw) => {
        const key = callerNumberKey(raw);
        expect(callerNumberKey(key)).toBe(key);
      }),
      { numRuns: 5000 },
    );
  });

  it('is idempotent on long mixed input around the 128-character cut', () => {
    const mixed = fc.string({
      unit: fc.constantFrom(
        'a',
        ' ',
        '1',
        '0',
        'sip:',
        'tel:',
        '@',
        '<',
        '>',
        ';',
        ':',
        '\u200B',
        '(0)',
        '+',
        '😀',
      ),
      minLength: 20,
      maxLength: 200,
    });
    fc.assert(
      fc.property(mixed, (raw) => {
        const key = callerNumberKey(raw);
        expect(callerNumberKey(key)).toBe(key);
      }),
      { numRuns: 5000 },
    );
  });

  it('gives one key for every way of writing one number', () => {
    fc.assert(
      fc.property(numberVariants, ({ canonical, written }) => {
        expect(callerNumberKey(written)).toBe(canonical);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws and stays within 128 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 1000 }), (raw) => {
        expect(callerNumberKey(raw).length).toBeLessThanOrEqual(CALLER_NUMBER_KEY_MAX_LENGTH);
      }),
      { numRuns: 2000 },
    );
  });
});
