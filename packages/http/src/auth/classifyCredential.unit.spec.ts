import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyCredential } from './classifyCredential.js';

const KEY = 'plat_abcDEF0123456789_-';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const bearerOk = { allowBearer: true };
const xApiKeyOnly = { allowBearer: false };
const classify = (headers: Record<string, string | string[]>, options = bearerOk) =>
  classifyCredential({ headers }, options);

describe('classifyCredential (spec 000 §5)', () => {
  it('accepts a platform key in x-api-key, and as a bearer only where allowed', () => {
    expect(classify({ 'x-api-key': KEY }, xApiKeyOnly)).toEqual({ kind: 'apiKey', key: KEY });
    expect(classify({ authorization: `Bearer ${KEY}` })).toEqual({ kind: 'apiKey', key: KEY });
    expect(classify({ authorization: `bearer  ${KEY}` })).toEqual({ kind: 'apiKey', key: KEY });
    expect(classify({ authorization: `Bearer ${KEY}` }, xApiKeyOnly)).toEqual({ kind: 'invalid' });
    expect(classify({ 'x-api-key': KEY, authorization: `Bearer ${KEY}` })).toEqual({
      kind: 'apiKey',
      key: KEY,
    });
  });

  it('refuses other credential types: JWT bearer, app assertion, public key, SDK token', () => {
    for (const options of [bearerOk, xApiKeyOnly]) {
      expect(classify({ authorization: `Bearer ${JWT}` }, options)).toEqual({ kind: 'refused', type: 'jwt' });
      expect(classify({ auth: JWT }, options)).toEqual({ kind: 'refused', type: 'appAssertion' });
      expect(classify({ 'x-api-key': 'pk_live_123' }, options)).toEqual({
        kind: 'refused',
        type: 'publicKey',
      });
      expect(classify({ authorization: 'Bearer pk_live_123' }, options)).toEqual({
        kind: 'refused',
        type: 'publicKey',
      });
      expect(classify({ 'x-public-key': 'pk_live_123' }, options)).toEqual({
        kind: 'refused',
        type: 'publicKey',
      });
      expect(classify({ 'x-sdk-token': 'tok' }, options)).toEqual({ kind: 'refused', type: 'sdkToken' });
    }
  });

  it('calls nothing missing and everything unrecognised or ambiguous invalid', () => {
    expect(classify({})).toEqual({ kind: 'missing' });
    const cases: Array<Record<string, string | string[]>> = [
      { 'x-api-key': '' },
      { 'x-api-key': 'hello' },
      { 'x-api-key': 'plat_' },
      { 'x-api-key': `plat_${'a'.repeat(600)}` },
      { 'x-api-key': 'plat_a b' },
      { 'x-api-key': [KEY, KEY] },
      { authorization: `Basic ${KEY}` },
      { authorization: 'Bearer' },
      { authorization: KEY },
      { 'x-api-key': KEY, authorization: 'Bearer plat_another' },
      { 'x-api-key': KEY, auth: JWT },
    ];
    for (const headers of cases) {
      expect(classify(headers)).toEqual({ kind: 'invalid' });
    }
  });

  it('never throws on arbitrary headers, and finds a key only where a plat_ key was sent', () => {
    const names = fc.constantFrom(
      'x-api-key',
      'authorization',
      'auth',
      'x-public-key',
      'x-sdk-token',
      'cookie',
    );
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string().map((s) => `plat_${s}`),
      fc.string().map((s) => `Bearer ${s}`),
      fc.string().map((s) => `Bearer plat_${s}`),
      fc.array(fc.string(), { maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.dictionary(names, value), fc.boolean(), (headers, allowBearer) => {
        const result = classifyCredential({ headers }, { allowBearer });
        if (result.kind === 'apiKey') {
          expect(result.key.startsWith('plat_')).toBe(true);
          const sent = [headers['x-api-key'], headers.authorization].flat();
          expect(sent.some((v) => typeof v === 'string' && v.includes(result.key))).toBe(true);
          if (!allowBearer) expect(headers['x-api-key']).toBeDefined();
        }
      }),
      { numRuns: 2000 },
    );
  });
});
