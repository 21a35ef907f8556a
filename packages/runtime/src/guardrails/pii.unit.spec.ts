import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PII_KINDS } from '../agents/guardrailSchema.js';
import { detectPii, luhnValid, redactPii } from './pii.js';

/** A valid card number: the Luhn check digit appended to `body`. */
function withCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error('unreachable');
}

describe('PII detection', () => {
  it('finds e-mail addresses, phone numbers and Luhn-valid card numbers; redacts them', () => {
    const text =
      'Mail jane.doe+billing@example.co.uk or call +44 20 7946 0958, card 4111 1111 1111 1111 (order 4111111111111112).';
    const findings = detectPii(text, PII_KINDS);
    expect(findings.map((f) => [f.kind, text.slice(f.start, f.end)])).toEqual([
      ['email', 'jane.doe+billing@example.co.uk'],
      ['phone', '+44 20 7946 0958'],
      ['card', '4111 1111 1111 1111'],
    ]);
    expect(redactPii(text, findings)).toBe(
      'Mail [email] or call [phone], card [card] (order 4111111111111112).',
    );
  });

  it('Luhn: the known test numbers pass, a changed digit fails', () => {
    for (const card of ['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117']) {
      expect(luhnValid(card)).toBe(true);
      const changed = `${card.slice(0, -1)}${(Number(card.at(-1)) + 1) % 10}`;
      expect(luhnValid(changed)).toBe(false);
    }
  });

  it('every generated valid card is found and redacted, with or without separators', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[1-9][0-9]{14}$/),
        fc.constantFrom('', ' ', '-'),
        fc.string({ maxLength: 20 }).filter((s) => !/\d/.test(s)),
        (body, sep, around) => {
          const card = withCheckDigit(body);
          const written = card.match(/.{1,4}/g)!.join(sep);
          const text = `${around} ${written} ${around}`;
          const findings = detectPii(text, ['card']);
          expect(findings).toHaveLength(1);
          expect(redactPii(text, findings)).toBe(`${around} [card] ${around}`);
        },
      ),
    );
  });

  it('redaction leaves no finding behind and changes nothing else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const findings = detectPii(text, PII_KINDS);
        const redacted = redactPii(text, findings);
        expect(detectPii(redacted, PII_KINDS)).toEqual([]);
        if (findings.length === 0) expect(redacted).toBe(text);
      }),
    );
  });

  it('only the asked kinds', () => {
    const text = 'x@y.io 4111111111111111';
    expect(detectPii(text, ['email']).map((f) => f.kind)).toEqual(['email']);
    expect(detectPii(text, ['card']).map((f) => f.kind)).toEqual(['card']);
  });
});
