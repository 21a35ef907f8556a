import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactUrl } from './requestLogSerializers.js';

describe('redactUrl', () => {
  it('replaces the media token of a proxied media URL and keeps the rest', () => {
    expect(
      redactUrl('/api/projects/p1/recordings/r1/media/content/abcDEF_-123?objectIndex=0&disposition=inline'),
    ).toBe('/api/projects/p1/recordings/r1/media/content/[redacted]?objectIndex=0&disposition=inline');
    expect(redactUrl('/api/public/recordings/projects/p1/sessions/s1/recordings')).toBe(
      '/api/public/recordings/projects/p1/sessions/s1/recordings',
    );
    expect(redactUrl('/API/projects/p/recordings/r/MEDIA/CONTENT/tok')).toBe(
      '/API/projects/p/recordings/r/MEDIA/CONTENT/[redacted]',
    );
  });

  it('never lets a token through, whatever surrounds it', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9_-]{43}$/);
    fc.assert(
      fc.property(fc.string(), token, fc.string(), (before, secret, after) => {
        const url = `${before.replace(/[?#]/g, '')}/media/content/${secret}${after.startsWith('/') ? '' : '?'}${after}`;
        const redacted = redactUrl(url);
        expect(redacted).toContain('/media/content/[redacted]');
        expect(redacted.includes(`/media/content/${secret}`)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
