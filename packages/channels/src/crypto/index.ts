/**
 * The credential keyring (from @parley/platform) and verify-token hashing: what the rest of
 * @parley/channels and its users import from here.
 */
export { type CredentialKeyring, createKeyring, credentialsKeyId, keyringFromConfig } from './keyring.js';
