/** An inclusive byte range of an object of known size. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What a `Range` header asks of an object of `size` bytes (RFC 9110 §14):
 * - `full`: no header, another unit, a malformed value or several ranges: send the whole object (200).
 *   A server may ignore Range; several ranges would need multipart/byteranges, which media players
 *   do not ask for.
 * - `range`: one satisfiable range, clamped to the object (206).
 * - `unsatisfiable`: a well-formed range that starts at or after the end, or a zero suffix (416).
 */
export type RangeRequest = { kind: 'full' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

const SINGLE = /^bytes[ \t]*=[ \t]*(\d*)[ \t]*-[ \t]*(\d*)[ \t]*$/i;
const MAX_DIGITS = 15;

export function parseRange(header: string | string[] | undefined, size: number): RangeRequest {
  if (typeof header !== 'string') return { kind: 'full' };
  const match = SINGLE.exec(header);
  if (match === null) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first.length > MAX_DIGITS || last.length > MAX_DIGITS) return { kind: 'full' };
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    // Suffix range: the last N bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'range', range: { start, end } };
}
