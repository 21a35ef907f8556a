import { timingSafeEqual } from 'node:crypto';

/**
 * The one constant-time comparison of secrets (signatures, tokens, key digests): strings are
 * compared as their UTF-8 bytes. Inputs of different lengths are unequal (false, never a throw);
 * the length itself is not secret for any of Parley's uses (fixed-size digests and tokens).
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const left = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const right = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
