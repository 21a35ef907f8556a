import { createHash } from 'node:crypto';

// The keyring serves channels, webhook subscriptions and telephony accounts alike: it lives in
// @parley/platform, re-exported here for the channel code and its callers.
export {
  CREDENTIALS_KEY_BYTES,
  type CredentialKeyring,
  CredentialsDecryptError,
  CredentialsKeyUnknownError,
  createKeyring,
  credentialsKeyId,
  keyringFromConfig,
  parseCredentialsKey,
} from '@parley/platform';

/** SHA-256 of a verify token: what is stored and looked up, never the token. */
export const hashVerifyToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
