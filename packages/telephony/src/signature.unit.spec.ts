import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callbackParams, computeRequestSignature, verifyRequestSignature } from './signature.js';

// Twilio's documented example (https://www.twilio.com/docs/usage/security#validating-requests).
const TOKEN = '12345';
const URL_ = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const PARAMS = callbackParams({
  CallSid: 'CA1234567890ABCDE',
  Caller: '+14158675309',
  Digits: '1234',
  From: '+14158675309',
  To: '+18005551212',
});
const DOCUMENTED = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';

describe('computeRequestSignature', () => {
  it("reproduces Twilio's documented example signature", () => {
    expect(computeRequestSignature(TOKEN, URL_, PARAMS)).toBe(DOCUMENTED);
  });

  it('does not depend on the order parameters arrive in', () => {
    expect(computeRequestSignature(TOKEN, URL_, [...PARAMS].reverse())).toBe(DOCUMENTED);
  });

  it("signs repeated parameters as Twilio's helper libraries do (distinct values, sorted)", () => {
    const repeated: Array<[string, string]> = [
      ['Sid', 'CA123'],
      ['SidAccount', 'AC123'],
      ['Digits', '5678'],
      ['Digits', '1234'],
      ['Digits', '1234'],
    ];
    expect(computeRequestSignature(TOKEN, URL_, repeated)).toBe('IK+Dwps556ElfBT0I3Rgjkr1wJU=');
  });

  it('is base64 HMAC-SHA1 of the URL followed by sorted name+value pairs', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.webUrl(),
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        (token, url, record) => {
          const data =
            url +
            Object.keys(record)
              .sort()
              .map((k) => k + record[k])
              .join('');
          const expected = createHmac('sha1', token).update(data, 'utf8').digest('base64');
          expect(computeRequestSignature(token, url, callbackParams(record))).toBe(expected);
        },
      ),
    );
  });
});

describe('verifyRequestSignature', () => {
  it('accepts the documented signature and refuses any change of token, URL, parameter or signature', () => {
    const ok = { authToken: TOKEN, url: URL_, params: PARAMS, signature: DOCUMENTED };
    expect(verifyRequestSignature(ok)).toBe(true);
    expect(verifyRequestSignature({ ...ok, authToken: '12346' })).toBe(false);
    expect(verifyRequestSignature({ ...ok, url: `${URL_}&baz=3` })).toBe(false);
    expect(verifyRequestSignature({ ...ok, url: 'http://mycompany.com/myapp.php?foo=1&bar=2' })).toBe(false);
    expect(
      verifyRequestSignature({ ...ok, params: [...PARAMS.slice(1), ['CallSid', 'CA1234567890ABCDF']] }),
    ).toBe(false);
    expect(verifyRequestSignature({ ...ok, params: [...PARAMS, ['Extra', '']] })).toBe(false);
    expect(verifyRequestSignature({ ...ok, signature: undefined })).toBe(false);
    expect(verifyRequestSignature({ ...ok, signature: '' })).toBe(false);
    expect(verifyRequestSignature({ ...ok, signature: `${DOCUMENTED}x` })).toBe(false);
    expect(verifyRequestSignature({ ...ok, signature: 'invalid 王' })).toBe(false);
  });

  it('accepts a signature over the URL with or without the default port', () => {
    const withPort = 'https://mycompany.com:443/myapp.php?foo=1&bar=2';
    const signedWithPort = computeRequestSignature(TOKEN, withPort, PARAMS);
    expect(
      verifyRequestSignature({ authToken: TOKEN, url: URL_, params: PARAMS, signature: signedWithPort }),
    ).toBe(true);
    expect(
      verifyRequestSignature({ authToken: TOKEN, url: withPort, params: PARAMS, signature: DOCUMENTED }),
    ).toBe(true);
    const otherPort = computeRequestSignature(
      TOKEN,
      'https://mycompany.com:8443/myapp.php?foo=1&bar=2',
      PARAMS,
    );
    expect(
      verifyRequestSignature({ authToken: TOKEN, url: URL_, params: PARAMS, signature: otherPort }),
    ).toBe(false);
  });

  it('never throws, whatever it is given, and accepts exactly its own signatures', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.oneof(fc.webUrl(), fc.string()),
        fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 8 }),
        fc.option(fc.string(), { nil: undefined }),
        (token, url, params, signature) => {
          expect(() => verifyRequestSignature({ authToken: token, url, params, signature })).not.toThrow();
          if (token.length > 0) {
            const own = computeRequestSignature(token, url, params);
            expect(verifyRequestSignature({ authToken: token, url, params, signature: own })).toBe(true);
          }
        },
      ),
    );
  });
});
