import { ParleyError } from '@parley/platform';

/**
 * What the agent store needs to keep secrets encrypted: the credentials keyring of
 * @parley/channels (`keyringFromConfig`, CHANNEL_CREDENTIALS_KEY) has exactly this shape, so the
 * agents' secrets and the channel connections' credentials share keys and rotation.
 */
export interface SecretsCipher {
  encrypt(plaintext: string, associatedData: string): { keyId: string; ciphertext: Buffer };
  decrypt(keyId: string, ciphertext: Buffer, associatedData: string): string;
}

/** Secrets given while no credentials key is configured: nothing can keep them encrypted. */
export class SecretsNotConfiguredError extends ParleyError {
  constructor() {
    super(
      'SECRETS_NOT_CONFIGURED',
      503,
      'agent secrets need CHANNEL_CREDENTIALS_KEY (they are stored encrypted like connection credentials)',
    );
    this.name = 'SecretsNotConfiguredError';
  }
}

/** A definition refers to secrets the agent does not have. */
export class SecretsMissingError extends ParleyError {
  constructor(readonly missing: string[]) {
    super('VALIDATION_ERROR', 400, `secrets not given: ${missing.join(', ')}`, {
      details: { field: 'secrets', missing },
      exposeDetails: true,
    });
    this.name = 'SecretsMissingError';
  }
}
