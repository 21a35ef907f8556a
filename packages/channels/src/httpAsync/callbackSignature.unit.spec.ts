import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  callbackAuthHeaders,
  signCallback,
  signSuspensionCallback,
  verifyCallbackBearer,
  verifyCallbackSignature,
  verifySuspensionCallback,
} from './callbackSignature.js';

const at = (seconds: number) => new Date(seconds * 1000);
const body = '{"message_id":"msg_1"}';

describe('signCallback', () => {
  it('signs "<timestamp>.<raw body>" with HMAC-SHA256 of the secret string (vector computed with openssl)', () => {
    // printf '%s' '1700000000.{"message_id":"msg_1"}' | openssl dgst -sha256 -hmac 'whsec_test'
    expect(signCallback(body, 'whsec_test', new Date(1_700_000_000_900))).toEqual({
      'X-Parley-Timestamp': '1700000000',
      'X-Parley-Signature': 'v1=9055ac3f370d56f15b03fe36fa3a12359900018c0bf9d868b87dd30ba12903e3',
    });
  });

  it('gives bearer-mode callbacks an Authorization header only', () => {
    expect(callbackAuthHeaders({ mode: 'bearer', token: 'tok_abc' }, body)).toEqual({
      Authorization: 'Bearer tok_abc',
    });
    expect(callbackAuthHeaders({ mode: 'hmac', secret: 'whsec_test' }, body, at(1_700_000_000))).toEqual(
      signCallback(body, 'whsec_test', at(1_700_000_000)),
    );
  });
});

describe('verifyCallbackSignature', () => {
  const signed = (raw: string | Uint8Array, secret: string, seconds: number) => {
    const headers = signCallback(raw, secret, at(seconds));
    return {
      timestamp: headers['X-Parley-Timestamp'] as string,
      signature: headers['X-Parley-Signature'] as string,
    };
  };

  it('accepts what signCallback produced, for any body bytes and secret, within the tolerance', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 2048 })),
        fc.string({ minLength: 1 }),
        fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }),
        fc.integer({ min: -300, max: 300 }),
        (raw, secret, seconds, skew) => {
          const result = verifyCallbackSignature({
            body: raw,
            ...signed(raw, secret, seconds),
            secret,
            now: at(seconds + skew),
          });
          expect(result).toEqual({ ok: true });
        },
      ),
    );
  });

  it('refuses the signature once any byte of the body changes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 1024 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (raw, index, delta) => {
          const headers = signed(raw, 'whsec_test', 1_700_000_000);
          const changed = Uint8Array.from(raw);
          const i = index % changed.length;
          changed[i] = ((changed[i] as number) + delta) % 256;
          const result = verifyCallbackSignature({
            body: changed,
            ...headers,
            secret: 'whsec_test',
            now: at(1_700_000_000),
          });
          expect(result).toEqual({ ok: false, reason: 'mismatch' });
        },
      ),
    );
  });

  it('refuses another secret, another timestamp, and a timestamp outside the tolerance', () => {
    const headers = signed(body, 'whsec_test', 1_700_000_000);
    const now = at(1_700_000_000);
    expect(verifyCallbackSignature({ body, ...headers, secret: 'whsec_other', now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(
      verifyCallbackSignature({ body, ...headers, timestamp: '1700000001', secret: 'whsec_test', now }),
    ).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(
      verifyCallbackSignature({ body, ...headers, secret: 'whsec_test', now: at(1_700_000_301) }),
    ).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(
      verifyCallbackSignature({ body, ...headers, secret: 'whsec_test', now: at(1_699_999_699) }),
    ).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(
      verifyCallbackSignature({
        body,
        ...headers,
        secret: 'whsec_test',
        now: at(1_700_000_010),
        toleranceSeconds: 5,
      }),
    ).toEqual({ ok: false, reason: 'stale' });
  });

  it('tells missing from malformed headers', () => {
    const { timestamp, signature } = signed(body, 'whsec_test', 1_700_000_000);
    const now = at(1_700_000_000);
    expect(
      verifyCallbackSignature({ body, timestamp: undefined, signature, secret: 'whsec_test', now }),
    ).toEqual({
      ok: false,
      reason: 'missing',
    });
    expect(verifyCallbackSignature({ body, timestamp, signature: '', secret: 'whsec_test', now })).toEqual({
      ok: false,
      reason: 'missing',
    });
    expect(
      verifyCallbackSignature({ body, timestamp: '17e8', signature, secret: 'whsec_test', now }),
    ).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(
      verifyCallbackSignature({
        body,
        timestamp,
        signature: signature.replace('v1=', 'v0='),
        secret: 'whsec_test',
        now,
      }),
    ).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts any of several signatures and any of several secrets (rotation), and upper-case hex', () => {
    const { timestamp, signature } = signed(body, 'whsec_new', 1_700_000_000);
    const now = at(1_700_000_000);
    const both = `v1=${'0'.repeat(64)}, ${signature.toUpperCase().replace('V1=', 'v1=')}`;
    expect(
      verifyCallbackSignature({ body, timestamp, signature: both, secret: ['whsec_old', 'whsec_new'], now }),
    ).toEqual({
      ok: true,
    });
    expect(verifyCallbackSignature({ body, timestamp, signature: both, secret: ['whsec_old'], now })).toEqual(
      {
        ok: false,
        reason: 'mismatch',
      },
    );
    expect(verifyCallbackSignature({ body, timestamp, signature, secret: [], now })).toEqual({
      ok: false,
      reason: 'mismatch',
    });
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.anything(),
        fc.anything(),
        fc.anything(),
        fc.anything(),
        (b, t, s, k, n) => {
          const result = verifyCallbackSignature({
            body: b,
            timestamp: t,
            signature: s,
            secret: k,
            now: n,
          } as never);
          expect(result.ok).toBe(false);
        },
      ),
    );
  });
});

describe('verifyCallbackBearer', () => {
  it('accepts exactly the token, refuses anything else, never throws', () => {
    expect(verifyCallbackBearer('Bearer tok_abc', 'tok_abc')).toBe(true);
    expect(verifyCallbackBearer('bearer  tok_abc', 'tok_abc')).toBe(true);
    expect(verifyCallbackBearer('Bearer tok_abd', 'tok_abc')).toBe(false);
    expect(verifyCallbackBearer('tok_abc', 'tok_abc')).toBe(false);
    expect(verifyCallbackBearer(undefined, 'tok_abc')).toBe(false);
    expect(verifyCallbackBearer('Bearer ', '')).toBe(false);
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (header, token) => {
        expect(() => verifyCallbackBearer(header as never, token as never)).not.toThrow();
      }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (token, other) => {
        fc.pre(token.trim() === token && other !== token && !/\s/.test(token));
        expect(verifyCallbackBearer(`Bearer ${token}`, token)).toBe(true);
        expect(verifyCallbackBearer(`Bearer ${other}`, token)).toBe(false);
      }),
    );
  });
});

describe('suspension callback signature (X-Callback-Signature)', () => {
  it('is the hex HMAC-SHA256 of the raw body (vector computed with openssl)', () => {
    // printf '%s' '{"resume":true}' | openssl dgst -sha256 -hmac 'susp_secret'
    expect(signSuspensionCallback('{"resume":true}', 'susp_secret')).toBe(
      '2ae98b375840cd9051e974b59fdee8230c18fc731ea8cb39c220c114c1adeca8',
    );
  });

  it('round-trips, with or without a sha256= prefix, in either case; any byte change fails', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 1024 }),
        fc.string({ minLength: 1 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (raw, secret, index, delta) => {
          const signature = signSuspensionCallback(raw, secret);
          expect(verifySuspensionCallback({ body: raw, signature, secret })).toBe(true);
          expect(
            verifySuspensionCallback({ body: raw, signature: `sha256=${signature.toUpperCase()}`, secret }),
          ).toBe(true);
          const changed = Uint8Array.from(raw);
          const i = index % changed.length;
          changed[i] = ((changed[i] as number) + delta) % 256;
          expect(verifySuspensionCallback({ body: changed, signature, secret })).toBe(false);
          expect(verifySuspensionCallback({ body: raw, signature, secret: `${secret}x` })).toBe(false);
        },
      ),
    );
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (b, s, k) => {
        expect(verifySuspensionCallback({ body: b, signature: s, secret: k } as never)).toBe(false);
      }),
    );
  });
});
