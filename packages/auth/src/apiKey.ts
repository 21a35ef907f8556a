import { createHash } from 'node:crypto';
import { BASE62_BITS_PER_CHAR, isBase62, randomBase62 } from './base62.js';

/**
 * Platform API keys: `plat_<lookup prefix><secret>`, all base62.
 * - lookup prefix: 12 characters (about 71 bits), stored in clear and unique,
 *   so verification is one indexed lookup;
 * - secret: 43 characters, 256 bits of entropy from crypto.randomBytes.
 * Only SHA-256 of the whole key is stored. A slow password hash (bcrypt,
 * argon2) buys nothing for a 256-bit random secret, which cannot be
 * brute-forced, and would cost milliseconds of CPU on every request.
 */
export const API_KEY_PREFIX = 'plat_';
export const LOOKUP_PREFIX_LENGTH = 12;
export const SECRET_LENGTH = Math.ceil(256 / BASE62_BITS_PER_CHAR);
export const API_KEY_LENGTH = API_KEY_PREFIX.length + LOOKUP_PREFIX_LENGTH + SECRET_LENGTH;

export interface GeneratedApiKey {
  /** The whole key; shown once, never stored. */
  key: string;
  lookupPrefix: string;
  hash: Buffer;
}

export function generateApiKey(): GeneratedApiKey {
  const lookupPrefix = randomBase62(LOOKUP_PREFIX_LENGTH);
  const key = API_KEY_PREFIX + lookupPrefix + randomBase62(SECRET_LENGTH);
  return { key, lookupPrefix, hash: hashApiKey(key) };
}

export const hashApiKey = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/**
 * The lookup prefix of a well-formed key, or null. Length is checked first so
 * that an oversized credential costs nothing more.
 */
export function parseApiKey(raw: unknown): { lookupPrefix: string } | null {
  if (typeof raw !== 'string' || raw.length !== API_KEY_LENGTH || !raw.startsWith(API_KEY_PREFIX)) {
    return null;
  }
  const body = raw.slice(API_KEY_PREFIX.length);
  if (!isBase62(body)) return null;
  return { lookupPrefix: body.slice(0, LOOKUP_PREFIX_LENGTH) };
}

/** Whether a credential looks like a platform key (for telling key kinds apart, not for trust). */
export const looksLikePlatformApiKey = (raw: string): boolean => raw.startsWith(API_KEY_PREFIX);

/** What `parley keys list` shows of a key: enough to recognise it, nothing to use it. */
export const displayPrefix = (lookupPrefix: string): string => `${API_KEY_PREFIX}${lookupPrefix}…`;
