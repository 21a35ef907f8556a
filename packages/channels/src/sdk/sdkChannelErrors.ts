import { ParleyError } from '@parley/platform';

export class SdkChannelNotFoundError extends ParleyError {
  constructor(id: string) {
    super('SDK_CHANNEL_NOT_FOUND', 404, `SDK channel not found: ${id}`);
    this.name = 'SdkChannelNotFoundError';
  }
}

/** `publicApiKeyId` is not an active (unrevoked) public key of the channel's project. */
export class PublicKeyNotUsableError extends ParleyError {
  constructor(id: string) {
    super(
      'VALIDATION_ERROR',
      400,
      `publicApiKeyId ${id} is not an active public key of this project (parley keys list-public)`,
      { details: { field: 'publicApiKeyId' } },
    );
    this.name = 'PublicKeyNotUsableError';
  }
}
