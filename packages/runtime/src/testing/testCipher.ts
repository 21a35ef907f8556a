import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretsCipher } from '../agents/secretsCipher.js';

/**
 * Test-only: a SecretsCipher (AES-256-GCM, the associated data authenticated) for tests of this
 * package, which cannot depend on @parley/channels' keyring (channels depends on the runtime).
 */
export function createTestCipher(key: Buffer = randomBytes(32)): SecretsCipher {
  return {
    encrypt(plaintext, associatedData) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(associatedData));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return { keyId: 'test', ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]) };
    },
    decrypt(_keyId, ciphertext, associatedData) {
      const decipher = createDecipheriv('aes-256-gcm', key, ciphertext.subarray(0, 12));
      decipher.setAAD(Buffer.from(associatedData));
      decipher.setAuthTag(ciphertext.subarray(12, 28));
      return Buffer.concat([decipher.update(ciphertext.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}
