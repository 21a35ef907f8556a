import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';

/**
 * Return-path authentication of HTTP async callbacks (spec 001 §5 item 2): per subscription, either
 * an HMAC signature the receiver checks with its shared secret, or a bearer token the receiver
 * compares. Also the `X-Callback-Signature` an external system sends when it resumes a suspended
 * tool execution. The HMAC key is the secret string's UTF-8 bytes, exactly as shown to the user
 * (not base64-decoded), so any receiver can verify with its language's stock HMAC.
 */
export const TIMESTAMP_HEADER = 'X-Parley-Timestamp';
export const SIGNATURE_HEADER = 'X-Parley-Signature';
export const SUSPENSION_SIGNATURE_HEADER = 'X-Callback-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type RawBody = string | Uint8Array;

export type CallbackAuth = { mode: 'hmac'; secret: string } | { mode: 'bearer'; token: string };

export type SignatureCheck =
  | { ok: true }
  | { ok: false; reason: 'missing' | 'malformed' | 'stale' | 'mismatch' };

const bytes = (body: RawBody): Buffer =>
  typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);

const hmacHex = (secret: string, ...parts: Buffer[]): string => {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  for (const part of parts) mac.update(part);
  return mac.digest('hex');
};

/** Equal-length hex digests compared in constant time; any other input is simply unequal. */
const sameDigest = (expectedHex: string, givenHex: string): boolean => {
  if (!/^[0-9a-f]{64}$/.test(givenHex)) return false;
  return constantTimeEqual(Buffer.from(expectedHex, 'hex'), Buffer.from(givenHex, 'hex'));
};

const signedPayload = (timestamp: string, body: RawBody): Buffer[] => [
  Buffer.from(`${timestamp}.`, 'utf8'),
  bytes(body),
];

/** The v1 signature: hex HMAC-SHA256(secret, "<timestamp>.<raw body>"). */
export function callbackSignatureV1(body: RawBody, secret: string, timestamp: string): string {
  return hmacHex(secret, ...signedPayload(timestamp, body));
}

/** Headers of a signed callback; `body` must be the exact bytes sent. */
export function signCallback(body: RawBody, secret: string, now: Date = new Date()): Record<string, string> {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  return {
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: `v1=${callbackSignatureV1(body, secret, timestamp)}`,
  };
}

/** Authentication headers of one callback for the subscription's return-path mode. */
export function callbackAuthHeaders(
  auth: CallbackAuth,
  body: RawBody,
  now: Date = new Date(),
): Record<string, string> {
  switch (auth.mode) {
    case 'hmac':
      return signCallback(body, auth.secret, now);
    case 'bearer':
      return { Authorization: `Bearer ${auth.token}` };
    default: {
      const unknown: never = auth;
      throw new Error(`unknown callback auth mode ${String((unknown as { mode: unknown }).mode)}`);
    }
  }
}

export interface VerifyCallbackSignatureInput {
  body: RawBody;
  /** The X-Parley-Timestamp header. */
  timestamp: string | undefined;
  /** The X-Parley-Signature header: one or more `v1=<hex>` separated by commas or spaces. */
  signature: string | undefined;
  /** The secret, or several while a rotated secret is still being accepted. */
  secret: string | readonly string[];
  now?: Date;
  /** How far the timestamp may be from now, either way; default 300 seconds. */
  toleranceSeconds?: number;
}

/**
 * Receiver-side check of a signed callback. Constant time in the digest comparison, and never
 * throws: anything unexpected is `malformed` or `mismatch`. A timestamp outside the tolerance is
 * `stale` even with a correct signature, which bounds replays of a captured callback.
 */
export function verifyCallbackSignature(input: VerifyCallbackSignatureInput): SignatureCheck {
  try {
    const { timestamp, signature } = input;
    if (
      typeof timestamp !== 'string' ||
      typeof signature !== 'string' ||
      timestamp === '' ||
      signature === ''
    ) {
      return { ok: false, reason: 'missing' };
    }
    if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'malformed' };
    const given = signature
      .split(/[\s,]+/)
      .filter((part) => part.startsWith('v1='))
      .map((part) => part.slice(3).toLowerCase());
    if (given.length === 0) return { ok: false, reason: 'malformed' };
    const now = input.now ?? new Date();
    const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!(Math.abs(now.getTime() / 1000 - Number(timestamp)) <= tolerance))
      return { ok: false, reason: 'stale' };
    const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
    let matched = false;
    // Every pair is compared (no early exit), so timing says nothing about which one matched.
    for (const secret of secrets) {
      if (typeof secret !== 'string' || secret === '') continue;
      const expected = callbackSignatureV1(input.body, secret, timestamp);
      for (const candidate of given) matched = sameDigest(expected, candidate) || matched;
    }
    return matched ? { ok: true } : { ok: false, reason: 'mismatch' };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}

/** Receiver-side check of a bearer-mode callback's Authorization header, in constant time. */
export function verifyCallbackBearer(authorization: string | undefined, token: string): boolean {
  try {
    if (typeof authorization !== 'string' || token === '') return false;
    const match = /^Bearer +(.+)$/i.exec(authorization.trim());
    if (match === null) return false;
    const expected = hmacHex('bearer', Buffer.from(token, 'utf8'));
    // Digests of both sides have equal length whatever the inputs, so no length leaks either.
    return sameDigest(expected, hmacHex('bearer', Buffer.from(match[1] as string, 'utf8')));
  } catch {
    return false;
  }
}

/**
 * The suspension callback's `X-Callback-Signature` (spec 001 §5 item 2): hex HMAC-SHA256 of the raw
 * body with the suspension's own secret. No timestamp: a suspension resumes once, so a replay finds
 * it already resumed.
 */
export function signSuspensionCallback(body: RawBody, secret: string): string {
  return hmacHex(secret, bytes(body));
}

/** Accepts the hex digest in either case, with or without a `sha256=` prefix; never throws. */
export function verifySuspensionCallback(input: {
  body: RawBody;
  signature: string | undefined;
  secret: string;
}): boolean {
  try {
    if (typeof input.signature !== 'string' || typeof input.secret !== 'string' || input.secret === '')
      return false;
    const given = input.signature
      .trim()
      .replace(/^sha256=/i, '')
      .toLowerCase();
    return sameDigest(signSuspensionCallback(input.body, input.secret), given);
  } catch {
    return false;
  }
}
