import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ParleyError } from './errors.js';

/**
 * AES-256-GCM with a keyring (docs/channels.md "Credentials and key rotation"), for every secret
 * Parley must keep usable (channel connection credentials, webhook subscription secrets, telephony
 * account auth tokens), all under CHANNEL_CREDENTIALS_KEY / CHANNEL_CREDENTIALS_KEYS: new ciphertexts use
 * the current key; any key of the ring decrypts, chosen by the key id stored next to the
 * ciphertext. A key id is derived from the key (`ck_` + the first 16 hex digits of its SHA-256), so
 * configuration only lists keys.
 *
 * Ciphertext layout: version byte 0x01 | 12-byte IV | 16-byte auth tag | ciphertext. The caller's
 * associated data (the row's id) is authenticated, so a ciphertext copied to another row does not
 * decrypt.
 */
export interface CredentialKeyring {
  /** Id of the key new ciphertexts use. */
  readonly currentKeyId: string;
  /** Every key id the ring can decrypt, the current one first. */
  readonly keyIds: readonly string[];
  encrypt(plaintext: string, associatedData: string): { keyId: string; ciphertext: Buffer };
  /** CredentialsKeyUnknownError when the ring lacks the key; CredentialsDecryptError when it does not authenticate. */
  decrypt(keyId: string, ciphertext: Buffer, associatedData: string): string;
}

export class CredentialsKeyUnknownError extends ParleyError {
  constructor(keyId: string) {
    super('CREDENTIALS_KEY_UNKNOWN', 500, `credentials key ${keyId} is not configured`);
    this.name = 'CredentialsKeyUnknownError';
  }
}

export class CredentialsDecryptError extends ParleyError {
  constructor() {
    super('CREDENTIALS_DECRYPT_FAILED', 500, 'stored credentials did not decrypt');
    this.name = 'CredentialsDecryptError';
  }
}

const VERSION = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const CREDENTIALS_KEY_BYTES = 32;

/** The key id of a 32-byte key. */
export const credentialsKeyId = (key: Buffer): string =>
  `ck_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** A base64 (or base64url) key of exactly 32 bytes; throws with `name` in the message otherwise. */
export function parseCredentialsKey(value: string, name = 'CHANNEL_CREDENTIALS_KEY'): Buffer {
  const text = value.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new Error(`${name} must be base64 of 32 random bytes`);
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== CREDENTIALS_KEY_BYTES) {
    throw new Error(`${name} must be base64 of 32 random bytes (got ${key.length} bytes)`);
  }
  return key;
}

/** A ring from the current key and older keys (still decrypting, never encrypting). */
export function createKeyring(current: Buffer, previous: readonly Buffer[] = []): CredentialKeyring {
  const keys = new Map<string, Buffer>();
  for (const key of [current, ...previous]) {
    if (key.length !== CREDENTIALS_KEY_BYTES) throw new Error('credentials keys are 32 bytes');
    keys.set(credentialsKeyId(key), Buffer.from(key));
  }
  const currentKeyId = credentialsKeyId(current);
  return {
    currentKeyId,
    keyIds: [...keys.keys()],
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.get(currentKeyId)!, iv);
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return {
        keyId: currentKeyId,
        ciphertext: Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]),
      };
    },
    decrypt(keyId, ciphertext, associatedData) {
      const key = keys.get(keyId);
      if (key === undefined) throw new CredentialsKeyUnknownError(keyId);
      if (ciphertext.length < 1 + IV_BYTES + TAG_BYTES || ciphertext[0] !== VERSION) {
        throw new CredentialsDecryptError();
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ciphertext.subarray(1, 1 + IV_BYTES));
        decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        decipher.setAuthTag(ciphertext.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
        const body = ciphertext.subarray(1 + IV_BYTES + TAG_BYTES);
        return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
      } catch {
        throw new CredentialsDecryptError();
      }
    },
  };
}

/**
 * The ring from configuration: CHANNEL_CREDENTIALS_KEY (current) and CHANNEL_CREDENTIALS_KEYS
 * (older keys, comma-separated, decrypt only). Null when no current key is configured.
 */
export function keyringFromConfig(config: {
  CHANNEL_CREDENTIALS_KEY?: string | undefined;
  CHANNEL_CREDENTIALS_KEYS?: string | undefined;
}): CredentialKeyring | null {
  if (config.CHANNEL_CREDENTIALS_KEY === undefined || config.CHANNEL_CREDENTIALS_KEY.trim() === '')
    return null;
  const current = parseCredentialsKey(config.CHANNEL_CREDENTIALS_KEY);
  const previous = (config.CHANNEL_CREDENTIALS_KEYS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s, i) => parseCredentialsKey(s, `CHANNEL_CREDENTIALS_KEYS[${i}]`));
  return createKeyring(current, previous);
}
