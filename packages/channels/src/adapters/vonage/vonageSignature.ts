import { createHash, createHmac } from 'node:crypto';
import { constantTimeEqual } from '@parley/platform';
import { verifySignature as verifyJwtSignature } from '@vonage/jwt';
import type { VonageSignatureMethod } from './vonageSettings.js';

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** A JSON segment of a token: 0 the header, 1 the claims. */
function segment(token: string, index: 0 | 1): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(
      Buffer.from(token.split('.')[index] ?? '', 'base64url').toString('utf8'),
    );
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Default of VONAGE_WEBHOOK_MAX_AGE_SECONDS: how far a signed webhook's time may be from ours. */
export const VONAGE_WEBHOOK_MAX_AGE_SECONDS = 300;

/**
 * The replay window of a signed webhook (docs/decisions.md "Vonage signature windows"): the
 * signed time (the JWT's `iat`, the SMS API's `timestamp`, Unix seconds) at most `maxAgeSeconds`
 * from `now`, either way (Vonage's clock may be ahead of ours).
 */
export interface SignatureWindow {
  now: Date;
  maxAgeSeconds: number;
}

/** Whether a signed Unix time (seconds) lies in the window; not a finite number: no. */
export function withinWindow(signedAt: unknown, window: SignatureWindow): boolean {
  if (typeof signedAt !== 'number' || !Number.isFinite(signedAt)) return false;
  return Math.abs(window.now.getTime() / 1000 - signedAt) <= window.maxAgeSeconds;
}

/**
 * A Messages API signed webhook: `Authorization: Bearer <JWT>`, HS256 with the account's signature
 * secret (verified by @vonage/jwt), whose `payload_hash` claim is the SHA-256 (hex) of the exact
 * body. Vonage calls the hash check optional over HTTPS; it is done always, so a token cannot be
 * replayed with another body. Its `iat` must lie in the window and its `exp`, when present, must
 * not be past: a captured request cannot be replayed later. False, never a throw, for anything
 * missing or malformed.
 */
export function verifyMessagesWebhook(
  authorization: string | undefined,
  rawBody: Buffer,
  signatureSecret: string,
  window: SignatureWindow,
): boolean {
  if (signatureSecret === '' || authorization === undefined) return false;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  const token = match?.[1];
  if (token === undefined) return false;
  let verified: boolean;
  try {
    verified = verifyJwtSignature(token, signatureSecret);
  } catch {
    return false;
  }
  // Only the shared-secret algorithm: a token signed any other way is not Vonage's webhook.
  if (!verified || segment(token, 0)?.alg !== 'HS256') return false;
  const claims = segment(token, 1);
  if (!withinWindow(claims?.iat, window)) return false;
  const exp = claims?.exp;
  if (exp !== undefined && !(typeof exp === 'number' && window.now.getTime() / 1000 <= exp)) return false;
  const hash = claims?.payload_hash;
  return typeof hash === 'string' && constantTimeEqual(hash.toLowerCase(), sha256Hex(rawBody));
}

/**
 * The SMS API's request signature (Vonage "Signing messages", the algorithm of its SDKs): the
 * parameters except `sig`, sorted by name, each written `&name=value` with `&` and `=` in values
 * replaced by `_`; then `md5hash`: MD5 of that string followed by the secret, or an HMAC of the
 * string keyed with the secret. Hex; Vonage sends md5hash lower-case and HMACs upper-case.
 */
export function smsApiSignature(
  params: Readonly<Record<string, string>>,
  signatureSecret: string,
  method: VonageSignatureMethod,
): string {
  const signed = Object.keys(params)
    .filter((name) => name !== 'sig')
    .sort()
    .map((name) => `&${name}=${(params[name] ?? '').replace(/[&=]/g, '_')}`)
    .join('');
  switch (method) {
    case 'md5hash':
      return createHash('md5')
        .update(signed + signatureSecret)
        .digest('hex');
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512':
      return createHmac(method, signatureSecret).update(signed).digest('hex');
    default: {
      const unknown: never = method;
      throw new Error(`unknown Vonage signature method ${String(unknown)}`);
    }
  }
}

/**
 * An SMS API webhook's `sig`, checked with the connection's method and secret (case-insensitive
 * hex, constant time), and its signed `timestamp` (Unix seconds, required) in the window.
 */
export function verifySmsApiWebhook(
  params: Readonly<Record<string, string>>,
  signatureSecret: string,
  method: VonageSignatureMethod,
  window: SignatureWindow,
): boolean {
  const sig = params.sig;
  if (signatureSecret === '' || sig === undefined || sig === '') return false;
  const timestamp = params.timestamp;
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || !withinWindow(Number(timestamp), window))
    return false;
  return constantTimeEqual(sig.toLowerCase(), smsApiSignature(params, signatureSecret, method));
}
