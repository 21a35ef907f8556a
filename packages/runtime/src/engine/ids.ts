import { randomBytes } from 'node:crypto';

/**
 * Random bytes taken from a pool refilled 4 KiB at a time (as crypto.randomUUID does): a turn makes
 * a dozen ids, and a randomBytes call each was a measurable share of a turn's CPU. Every byte is
 * handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;
function random(n: number): Buffer {
  if (offset + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  const out = pool.subarray(offset, offset + n);
  offset += n;
  return out;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `<prefix>` and `length` base62 characters (rejection sampling keeps them uniform). */
function prefixed(prefix: string, length = 20): string {
  let out = prefix;
  while (out.length < prefix.length + length) {
    for (const byte of random(length)) {
      if (byte < 248 && out.length < prefix.length + length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const newSessionId = (): string => prefixed('sess_');
export const newMessageId = (): string => prefixed('msg_');
export const newLlmCallId = (): string => prefixed('llm_');
/** W3C trace-context shapes: 16-byte trace id, 8-byte span id, lowercase hex. */
export const newTraceId = (): string => random(16).toString('hex');
export const newSpanId = (): string => random(8).toString('hex');
