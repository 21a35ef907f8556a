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

  it('redacts secrets platforms send in the query string, whatever else is there', () => {
    expect(redactUrl('/api/v1/channels/vxml/hooks/ivr-1?token=s3cr3t&turn=2')).toBe(
      '/api/v1/channels/vxml/hooks/ivr-1?token=[redacted]&turn=2',
    );
    expect(
      redactUrl('/api/v1/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=v&hub.challenge=1'),
    ).toBe(
      '/api/v1/channels/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=1',
    );
    expect(redactUrl('/api/v1/x?mytoken=keep')).toBe('/api/v1/x?mytoken=keep');
    expect(
      redactUrl(
        '/api/public/analytics/projects/p/sessions?fromDate=2026-11-01&callerNumber=%2B442071838750&callerNumber=Anonymous',
      ),
    ).toBe(
      '/api/public/analytics/projects/p/sessions?fromDate=2026-11-01&callerNumber=[redacted]&callerNumber=[redacted]',
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._~%-]{1,40}$/), fc.string(), (secret, before) => {
        const path = before.replace(/[?#&]/g, '');
        const redacted = redactUrl(`${path}?a=1&token=${secret}&b=2`);
        expect(redacted.endsWith('?a=1&token=[redacted]&b=2')).toBe(true);
      }),
    );
  });
});
