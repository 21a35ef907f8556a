import { createHash, randomBytes } from 'node:crypto';

export interface MediaTokenClaims {
  projectId: string;
  recordingId: string;
  objectIndex: number;
  expiresAt: Date;
}

export type MediaTokenBinding = Omit<MediaTokenClaims, 'expiresAt'>;

export interface MediaTokenStore {
  /** 256-bit random base64url token; stored (by its SHA-256, never in clear) with the claims for ttlSeconds. */
  issue(claims: MediaTokenBinding, ttlSeconds: number): Promise<{ token: string; expiresAt: Date }>;
  /** The claims when the token is known, unexpired and bound to exactly these ids; else null. */
  verify(token: string, expected: MediaTokenBinding): Promise<MediaTokenClaims | null>;
  /** Releases what the store itself owns (never a Redis client passed in). */
  close(): Promise<void>;
}

/** 32 random bytes, base64url without padding: always 43 characters. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newMediaToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A cheap syntactic check before any lookup (also keeps odd input away from Redis keys). */
export function isMediaTokenShaped(token: string): boolean {
  return TOKEN.test(token);
}

export function hashMediaToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function assertTtl(ttlSeconds: number): void {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1) {
    throw new RangeError(`media token ttl must be a positive integer of seconds, got ${ttlSeconds}`);
  }
}

export function sameBinding(a: MediaTokenBinding, b: MediaTokenBinding): boolean {
  return a.projectId === b.projectId && a.recordingId === b.recordingId && a.objectIndex === b.objectIndex;
}
