import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from '@parley/platform';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CredentialsDecryptError,
  CredentialsKeyUnknownError,
  createKeyring,
  credentialsKeyId,
  hashVerifyToken,
  keyringFromConfig,
  parseCredentialsKey,
} from './keyring.js';

const key = () => randomBytes(32);

describe('credentials keyring (AES-256-GCM)', () => {
  it('round-trips any text under the current key, with a fresh IV each time', () => {
    const ring = createKeyring(key());
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ minLength: 1 }), (text, ad) => {
        const a = ring.encrypt(text, ad);
        const b = ring.encrypt(text, ad);
        expect(a.keyId).toBe(ring.currentKeyId);
        expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
        expect(ring.decrypt(a.keyId, a.ciphertext, ad)).toBe(text);
      }),
    );
  });

  it('never holds the plaintext in the ciphertext', () => {
    const ring = createKeyring(key());
    const { ciphertext } = ring.encrypt('xoxb-very-secret-token', 'chc_1');
    expect(ciphertext.includes(Buffer.from('xoxb'))).toBe(false);
    expect(ciphertext[0]).toBe(1);
  });

  it('refuses a flipped bit, a truncated ciphertext and other associated data', () => {
    const ring = createKeyring(key());
    fc.assert(
      fc.property(fc.string(), fc.nat(), (text, at) => {
        const { keyId, ciphertext } = ring.encrypt(text, 'chc_a');
        const tampered = Buffer.from(ciphertext);
        const i = 1 + (at % (tampered.length - 1));
        tampered[i] = tampered[i]! ^ 0x01;
        expect(() => ring.decrypt(keyId, tampered, 'chc_a')).toThrow(CredentialsDecryptError);
        expect(() => ring.decrypt(keyId, ciphertext, 'chc_b')).toThrow(CredentialsDecryptError);
        expect(() => ring.decrypt(keyId, ciphertext.subarray(0, 20), 'chc_a')).toThrow(
          CredentialsDecryptError,
        );
      }),
      { numRuns: 50 },
    );
  });

  it('decrypts with older keys after rotation and encrypts with the new one', () => {
    const oldKey = key();
    const newKey = key();
    const before = createKeyring(oldKey).encrypt('secret', 'chc_x');
    const rotated = createKeyring(newKey, [oldKey]);
    expect(rotated.currentKeyId).toBe(credentialsKeyId(newKey));
    expect(rotated.keyIds).toEqual([credentialsKeyId(newKey), credentialsKeyId(oldKey)]);
    expect(rotated.decrypt(before.keyId, before.ciphertext, 'chc_x')).toBe('secret');
    expect(rotated.encrypt('secret', 'chc_x').keyId).toBe(credentialsKeyId(newKey));
    // A ring without the old key cannot read it.
    expect(() => createKeyring(newKey).decrypt(before.keyId, before.ciphertext, 'chc_x')).toThrow(
      CredentialsKeyUnknownError,
    );
  });

  it('derives stable key ids that reveal nothing of the key', () => {
    const k = key();
    expect(credentialsKeyId(k)).toMatch(/^ck_[0-9a-f]{16}$/);
    expect(credentialsKeyId(k)).toBe(credentialsKeyId(Buffer.from(k)));
    expect(credentialsKeyId(k)).not.toContain(k.toString('hex').slice(0, 16));
  });

  it('parses base64 and base64url keys of exactly 32 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const k = Buffer.from(bytes);
        expect(parseCredentialsKey(k.toString('base64')).equals(k)).toBe(true);
        expect(parseCredentialsKey(k.toString('base64url')).equals(k)).toBe(true);
      }),
    );
    for (const bad of [
      '',
      'not base64!',
      randomBytes(16).toString('base64'),
      randomBytes(33).toString('base64'),
    ]) {
      expect(() => parseCredentialsKey(bad)).toThrow(/CHANNEL_CREDENTIALS_KEY/);
    }
  });

  it('builds the ring from configuration', () => {
    expect(keyringFromConfig({})).toBeNull();
    expect(keyringFromConfig({ CHANNEL_CREDENTIALS_KEY: '  ' })).toBeNull();
    const [a, b, c] = [key(), key(), key()];
    const ring = keyringFromConfig({
      CHANNEL_CREDENTIALS_KEY: a.toString('base64'),
      CHANNEL_CREDENTIALS_KEYS: ` ${b.toString('base64')}, ,${c.toString('base64url')} `,
    });
    expect(ring?.keyIds).toEqual([a, b, c].map(credentialsKeyId));
    expect(() =>
      keyringFromConfig({ CHANNEL_CREDENTIALS_KEY: a.toString('base64'), CHANNEL_CREDENTIALS_KEYS: 'xx' }),
    ).toThrow(/CHANNEL_CREDENTIALS_KEYS\[0\]/);
  });

  it('hashes verify tokens with SHA-256', () => {
    expect(hashVerifyToken('abc').toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
  });

  it('validates the keys when the configuration loads', () => {
    const k = key().toString('base64');
    expect(
      loadConfig({ CHANNEL_CREDENTIALS_KEY: k, CHANNEL_CREDENTIALS_KEYS: `${key().toString('base64url')},` }),
    ).toMatchObject({
      CHANNEL_CREDENTIALS_KEY: k,
    });
    expect(loadConfig({ CHANNEL_CREDENTIALS_KEY: '' }).CHANNEL_CREDENTIALS_KEY).toBeUndefined();
    for (const env of [
      { CHANNEL_CREDENTIALS_KEY: 'short' },
      { CHANNEL_CREDENTIALS_KEY: randomBytes(31).toString('base64') },
      { CHANNEL_CREDENTIALS_KEYS: `${k},nope` },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
    }
  });
});
