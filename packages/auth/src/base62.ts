import { randomBytes } from 'node:crypto';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Bits of entropy per base62 character: log2(62). */
export const BASE62_BITS_PER_CHAR = Math.log2(62);

/**
 * `length` characters drawn uniformly from the base62 alphabet with
 * crypto.randomBytes. Bytes of 248 and above are rejected (248 = 4 * 62), so
 * `byte % 62` has no modulo bias.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // 1.1x covers the ~3% of rejected bytes in one draw nearly always.
    const bytes = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
    for (const byte of bytes) {
      if (byte >= 248) continue;
      out += BASE62_ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

const BASE62 = /^[0-9A-Za-z]+$/;

export const isBase62 = (value: string): boolean => BASE62.test(value);
