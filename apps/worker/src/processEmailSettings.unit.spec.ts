import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '@parley/platform';
import { describe, expect, it } from 'vitest';
import { workerEmailSettings } from './process.js';

const KEY = Buffer.alloc(32, 7).toString('base64');
const settingsOf = (env: Record<string, string>) => workerEmailSettings({ config: loadConfig(env) });

describe('workerEmailSettings', () => {
  it('is off without EMAIL_SMTP_PORT and defaults host and size otherwise', () => {
    expect(settingsOf({ CHANNEL_CREDENTIALS_KEY: KEY })).toBeUndefined();
    expect(settingsOf({ CHANNEL_CREDENTIALS_KEY: KEY, EMAIL_SMTP_PORT: '2525' })).toEqual({
      host: '127.0.0.1',
      port: 2525,
    });
  });

  it('reads the STARTTLS key and certificate files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-email-'));
    writeFileSync(join(dir, 'key.pem'), 'KEY');
    writeFileSync(join(dir, 'cert.pem'), 'CERT');
    const settings = settingsOf({
      CHANNEL_CREDENTIALS_KEY: KEY,
      EMAIL_SMTP_PORT: '25',
      EMAIL_SMTP_HOST: '0.0.0.0',
      EMAIL_SMTP_HOSTNAME: 'mx.acme.example',
      EMAIL_SMTP_TLS_KEY: join(dir, 'key.pem'),
      EMAIL_SMTP_TLS_CERT: join(dir, 'cert.pem'),
      EMAIL_SMTP_MAX_MESSAGE_BYTES: '2048',
    });
    expect(settings).toMatchObject({
      host: '0.0.0.0',
      port: 25,
      hostname: 'mx.acme.example',
      maxMessageBytes: 2048,
    });
    expect(settings?.tls?.key.toString()).toBe('KEY');
    expect(settings?.tls?.cert.toString()).toBe('CERT');
  });

  it('fails fast without the credentials key, with one TLS file, or an unreadable one', () => {
    expect(() => settingsOf({ EMAIL_SMTP_PORT: '25' })).toThrow(ConfigError);
    expect(() =>
      settingsOf({ CHANNEL_CREDENTIALS_KEY: KEY, EMAIL_SMTP_PORT: '25', EMAIL_SMTP_TLS_KEY: '/tmp/k.pem' }),
    ).toThrow(/both or neither/);
    expect(() =>
      settingsOf({
        CHANNEL_CREDENTIALS_KEY: KEY,
        EMAIL_SMTP_PORT: '25',
        EMAIL_SMTP_TLS_KEY: '/nonexistent/key.pem',
        EMAIL_SMTP_TLS_CERT: '/nonexistent/cert.pem',
      }),
    ).toThrow(ConfigError);
  });
});
