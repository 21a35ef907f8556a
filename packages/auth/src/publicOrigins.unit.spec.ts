import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAllowedOrigins, MAX_ALLOWED_ORIGINS, normalizeOrigin } from './publicOrigins.js';

describe('normalizeOrigin', () => {
  it('gives the origin a browser sends in its Origin header', () => {
    expect(normalizeOrigin('https://shop.example.com')).toBe('https://shop.example.com');
    expect(normalizeOrigin(' https://Shop.Example.COM/ ')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:443')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:8443')).toBe('https://shop.example.com:8443');
    expect(normalizeOrigin('https://bücher.example')).toBe('https://xn--bcher-kva.example');
    expect(normalizeOrigin('http://localhost:5173')).toBe('http://localhost:5173');
    expect(normalizeOrigin('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(normalizeOrigin('http://[::1]:3000')).toBe('http://[::1]:3000');
  });

  it('refuses what is not an origin, or not a safe one', () => {
    for (const bad of [
      '',
      'null',
      '*',
      'shop.example.com',
      'http://shop.example.com',
      'ftp://shop.example.com',
      'https://shop.example.com/path',
      'https://shop.example.com//',
      'https://shop.example.com?x=1',
      'https://shop.example.com?',
      'https://shop.example.com#top',
      'https://user:pw@shop.example.com',
      'https://*.example.com',
      'https://shop example.com',
      'javascript:alert(1)',
    ]) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it('is idempotent, and what it returns is what URL calls the origin', () => {
    const host = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?(\.[a-z]{2,8}){1,2}$/);
    const origin = fc.tuple(host, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }));
    fc.assert(
      fc.property(origin, fc.boolean(), ([h, port], slash) => {
        const raw = `https://${h}${port === undefined ? '' : `:${port}`}${slash ? '/' : ''}`;
        const once = normalizeOrigin(raw);
        expect(once).toBe(new URL(raw).origin);
        expect(normalizeOrigin(once!)).toBe(once);
      }),
    );
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const r = normalizeOrigin(s);
        if (r !== null) expect(r).toMatch(/^https?:\/\/[^/?#]+$/);
      }),
    );
  });
});

describe('checkAllowedOrigins', () => {
  it('normalizes and deduplicates, in the order given', () => {
    expect(checkAllowedOrigins(['https://b.example', 'https://A.example/', 'https://b.example:443'])).toEqual(
      ['https://b.example', 'https://a.example'],
    );
  });

  it('refuses none, too many or a bad one, naming the bad ones', () => {
    expect(() => checkAllowedOrigins([])).toThrow(/at least one/);
    const many = Array.from({ length: MAX_ALLOWED_ORIGINS + 1 }, (_, i) => `https://s${i}.example`);
    expect(() => checkAllowedOrigins(many)).toThrow(/at most 50/);
    expect(() => checkAllowedOrigins(['https://ok.example', 'http://shop.example'])).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        status: 400,
        message: expect.stringContaining('http://shop.example'),
      }),
    );
  });
});
