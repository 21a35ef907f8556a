/**
 * The caller-number match key of spec 000 §4.2 (callerNumber rules 1 to 3). The same function runs
 * when a session starts (the key is stored) and on every filter value, so both sides meet on one key.
 * Pure and total: any string gives a key of at most 128 characters, and key(key(x)) = key(x).
 * The README ("callerNumberKey") gives the reading of each rule with examples.
 */

export const CALLER_NUMBER_KEY_MAX_LENGTH = 128;
/** What a withheld-number call is stored as, so that the filter value `Anonymous` finds them all. */
export const ANONYMOUS_CALLER_KEY = 'Anonymous';

// A phone number written by hand is short; longer digit-and-separator strings are ids or junk, kept as
// text. The bound also keeps truncated text keys (127+ characters) from reading as phone numbers later.
const PHONE_MAX_LENGTH = 64;
const E164_MAX_DIGITS = 15;
const INTERNATIONAL_MIN_DIGITS = 7;

const LINE_BREAKS_AND_TABS = /[\t\n\v\f\r\u0085]/g;
// Format characters (zero-width, bidi marks and isolates, BOM, soft hyphen, word joiner), other
// control characters and lone surrogates.
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Cs}]/gu;
const FULLWIDTH_DIGIT = /[\uFF10-\uFF19]/g;
const FULLWIDTH_PLUS = /\uFF0B/g;
const DASHES = /[\p{Pd}\u2212\uFE63]/gu;
const SPACES = /[\p{Zs}\u2028\u2029]+/gu;

const URI_SCHEME = /^<?(?:sips?|tel):/i;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const PHONE_CHARS = /^[+\d ().\-/]+$/;
const TRUNK_IN_PARENTHESES = /\( *0 *\)/g;

// E.164 country codes by length: 1 and 7 take one digit, this list two, every other code three.
const TWO_DIGIT_COUNTRY_CODES = new Set([
  '20',
  '27',
  '30',
  '31',
  '32',
  '33',
  '34',
  '36',
  '39',
  '40',
  '41',
  '43',
  '44',
  '45',
  '46',
  '47',
  '48',
  '49',
  '51',
  '52',
  '53',
  '54',
  '55',
  '56',
  '57',
  '58',
  '60',
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '81',
  '82',
  '84',
  '86',
  '90',
  '91',
  '92',
  '93',
  '94',
  '95',
  '98',
]);
// Countries whose numbers keep a leading 0 after the country code (it is not a trunk prefix there):
// Italy, San Marino, Vatican City, Côte d'Ivoire, Republic of the Congo.
const LEADING_ZERO_KEPT = new Set(['39', '378', '379', '225', '242']);

export function callerNumberKey(raw: string): string {
  const cleaned = clean(String(raw));
  const value = userPartOfUri(cleaned);
  return truncate(phoneKey(value) ?? value);
}

/** Rule 1, first half: invisible characters, fullwidth digits, Unicode dashes; spacing made plain. */
function clean(value: string): string {
  return value
    .replace(LINE_BREAKS_AND_TABS, ' ')
    .replace(INVISIBLE, '')
    .replace(FULLWIDTH_DIGIT, (d) => String.fromCharCode(d.charCodeAt(0) - 0xff10 + 0x30))
    .replace(FULLWIDTH_PLUS, '+')
    .replace(DASHES, '-')
    .replace(SPACES, ' ')
    .trim();
}

/**
 * `sip:`, `sips:` and `tel:` URIs (optionally in angle brackets) give their user part: before `@`,
 * without `;parameters` or a `:password`. Nested schemes are unwrapped until none is left. A URI whose
 * user part has no letter or digit (`sip:@host`) is kept whole, as text.
 */
function userPartOfUri(value: string): string {
  let current = value;
  for (;;) {
    const scheme = URI_SCHEME.exec(current);
    if (scheme === null) return current;
    const isTel = /tel:$/i.test(scheme[0]);
    let rest = current.slice(scheme[0].length);
    rest = cut(rest, '>');
    if (!isTel) rest = cut(rest, '@');
    rest = cut(rest, ';');
    if (!isTel) rest = cut(rest, ':');
    const user = rest.trim();
    if (!LETTER_OR_DIGIT.test(user)) return current;
    current = user;
  }
}

function cut(value: string, separator: string): string {
  const at = value.indexOf(separator);
  return at === -1 ? value : value.slice(0, at);
}

/** Rules 1 and 2 for phone-like values; undefined when the value is not phone-like (kept as text). */
function phoneKey(value: string): string | undefined {
  if (value.length > PHONE_MAX_LENGTH || !PHONE_CHARS.test(value)) return undefined;
  const firstDigit = value.search(/\d/);
  if (firstDigit === -1) return undefined;
  const plus = value.indexOf('+');
  if (plus !== value.lastIndexOf('+') || plus > firstDigit) return undefined;
  // `(0)` after a country code is the optional national trunk: +44 (0)20 7946 0958.
  const withoutTrunk = value.replace(TRUNK_IN_PARENTHESES, (match, offset: number) =>
    offset > firstDigit ? '' : match,
  );
  const digits = withoutTrunk.replace(/\D/g, '');
  if (digits.length > E164_MAX_DIGITS) return undefined;
  if (plus !== -1) return `+${withoutNationalTrunk(digits)}`;
  // National format keeps its digits: a leading 0 (trunk or dial prefix, never converted) ...
  if (digits.startsWith('0')) return digits;
  // ... or an area code in parentheses, kept as `(212)5551234`: bare digits would read as international.
  if (withoutTrunk.startsWith('(')) return withoutTrunk.replace(/[^\d()]/g, '');
  if (digits.length >= INTERNATIONAL_MIN_DIGITS) return `+${withoutNationalTrunk(digits)}`;
  return digits;
}

/** Drops the national trunk 0 (every 0) written right after the country code: +44020… → +4420…. */
function withoutNationalTrunk(digits: string): string {
  const countryCode = countryCodeOf(digits);
  if (countryCode === undefined || LEADING_ZERO_KEPT.has(countryCode)) return digits;
  let rest = countryCode.length;
  while (digits[rest] === '0') rest += 1;
  return countryCode + digits.slice(rest);
}

function countryCodeOf(digits: string): string | undefined {
  const first = digits[0];
  if (first === undefined || first === '0') return undefined;
  if (first === '1' || first === '7') return first;
  if (digits.length < 2) return undefined;
  const two = digits.slice(0, 2);
  if (TWO_DIGIT_COUNTRY_CODES.has(two)) return two;
  return digits.length < 3 ? undefined : digits.slice(0, 3);
}

/** Rule 3: keys longer than 128 characters are cut, never inside a surrogate pair. */
function truncate(value: string): string {
  if (value.length <= CALLER_NUMBER_KEY_MAX_LENGTH) return value;
  let cutAt = CALLER_NUMBER_KEY_MAX_LENGTH;
  const last = value.charCodeAt(cutAt - 1);
  if (last >= 0xd800 && last <= 0xdbff) cutAt -= 1;
  return value.slice(0, cutAt).trimEnd();
}
