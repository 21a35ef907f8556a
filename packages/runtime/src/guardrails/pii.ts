import type { PiiKind } from '../agents/guardrailSchema.js';

/**
 * Personal data in text (docs/agents.md "Guardrails"): e-mail addresses, phone numbers and payment
 * card numbers. Cards are 13 to 19 digits (spaces or dashes between groups allowed) that pass the
 * Luhn check, so an order number rarely counts as one. Phones are international (`+` and 7 to 15
 * digits) or national numbers of 9 to 15 digits written with separators or a leading 0 or
 * parentheses; a digit run that is a card is a card, not a phone.
 */
export interface PiiFinding {
  kind: PiiKind;
  start: number;
  end: number;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const CARD = /(?<![\d])(?:\d[ -]?){12,18}\d(?![\d])/g;
const PHONE =
  /(?<![\w+])(?:\+\d[\d ().-]{6,20}\d|\(?0\d[\d ().-]{6,18}\d|\(\d{2,4}\)[\d ().-]{5,16}\d|\d{3}[ .-]\d{3}[ .-]\d{3,4})(?![\w])/g;

/** The Luhn checksum over the digits of `text` (other characters ignored). */
export function luhnValid(text: string): boolean {
  const digits = text.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const digitCount = (text: string): number => text.replace(/\D/g, '').length;

const overlaps = (a: PiiFinding, list: readonly PiiFinding[]): boolean =>
  list.some((b) => a.start < b.end && b.start < a.end);

/** Findings of the asked kinds, in text order, never overlapping (e-mail, then card, then phone wins). */
export function detectPii(text: string, kinds: readonly PiiKind[]): PiiFinding[] {
  const found: PiiFinding[] = [];
  const add = (kind: PiiKind, regex: RegExp, accept: (match: string) => boolean) => {
    if (!kinds.includes(kind)) return;
    for (const match of text.matchAll(regex)) {
      const finding = { kind, start: match.index, end: match.index + match[0].length };
      if (accept(match[0]) && !overlaps(finding, found)) found.push(finding);
    }
  };
  add('email', EMAIL, () => true);
  add('card', CARD, luhnValid);
  // Card-like digit runs that fail Luhn are not cards; they may still read as phone numbers.
  add('phone', PHONE, (m) => {
    const n = digitCount(m);
    return n >= 7 && n <= 15;
  });
  return found.sort((a, b) => a.start - b.start);
}

/** The text with each finding replaced by `[email]`, `[phone]` or `[card]`. */
export function redactPii(text: string, findings: readonly PiiFinding[]): string {
  let out = '';
  let at = 0;
  for (const f of findings) {
    out += `${text.slice(at, f.start)}[${f.kind}]`;
    at = f.end;
  }
  return out + text.slice(at);
}

/** How many findings of each kind (what a trace records: never the values). */
export function countByKind(findings: readonly PiiFinding[]): Partial<Record<PiiKind, number>> {
  const counts: Partial<Record<PiiKind, number>> = {};
  for (const f of findings) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
  return counts;
}
