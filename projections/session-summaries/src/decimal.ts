/**
 * Exact decimal sums for costs. Adding JS doubles is not associative, so a sum folded in another
 * order could differ in its last bits; a session's row must be the same under any order of its
 * events. Each cost is read as the decimal its shortest JS spelling denotes (what the log stores as
 * JSON) and summed exactly with bigints; the row keeps the sum as a numeric string.
 */

interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

function parse(text: string): Decimal {
  const [mantissa = '', exponentText] = text.toLowerCase().split('e');
  const match = PLAIN.exec(mantissa);
  if (!match) throw new RangeError(`not a decimal: ${text}`);
  const [, sign = '', whole = '', fraction = ''] = match;
  let digits = BigInt(`${sign}${whole}${fraction}`);
  let scale = fraction.length - Number(exponentText ?? 0);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits, scale };
}

function format({ digits, scale }: Decimal): string {
  const negative = digits < 0n;
  let text = (negative ? -digits : digits).toString();
  if (scale > 0) {
    text = text.padStart(scale + 1, '0');
    const whole = text.slice(0, -scale);
    const fraction = text.slice(-scale).replace(/0+$/, '');
    text = fraction ? `${whole}.${fraction}` : whole;
  }
  return negative && text !== '0' ? `-${text}` : text;
}

/** `sum` (a decimal string) plus `amount` (a finite number), exactly, in canonical form (no trailing zeros). */
export function addDecimal(sum: string, amount: number): string {
  if (!Number.isFinite(amount)) throw new RangeError(`not a finite amount: ${amount}`);
  const a = parse(sum);
  const b = parse(String(amount));
  const scale = Math.max(a.scale, b.scale);
  const digits = a.digits * 10n ** BigInt(scale - a.scale) + b.digits * 10n ** BigInt(scale - b.scale);
  return format({ digits, scale });
}
