import { ParleyError } from '@parley/platform';

export class ConnectionNotFoundError extends ParleyError {
  constructor(id: string) {
    super('CHANNEL_CONNECTION_NOT_FOUND', 404, `channel connection not found: ${id}`);
    this.name = 'ConnectionNotFoundError';
  }
}

/** Another connection of the channel type has the external identifier (inbound routing must be unambiguous). */
export class ConnectionExistsError extends ParleyError {
  constructor(channelType: string, externalIdentifier: string) {
    super(
      'CHANNEL_CONNECTION_EXISTS',
      409,
      `a ${channelType} connection with the external identifier ${externalIdentifier} already exists`,
    );
    this.name = 'ConnectionExistsError';
  }
}

export class UnknownChannelTypeError extends ParleyError {
  constructor(channelType: string) {
    super('UNKNOWN_CHANNEL_TYPE', 400, `unknown channel type: ${channelType}`);
    this.name = 'UnknownChannelTypeError';
  }
}

/** A provider the channel type has no variant for (or any provider, for a type without variants). */
export class UnknownProviderError extends ParleyError {
  constructor(channelType: string, provider: string, known: readonly string[]) {
    super(
      'UNKNOWN_PROVIDER',
      400,
      known.length === 0
        ? `channel type ${channelType} has no provider variants (got ${provider})`
        : `unknown ${channelType} provider: ${provider} (one of ${known.join(', ')})`,
      { details: { provider, providers: [...known] } },
    );
    this.name = 'UnknownProviderError';
  }
}

export class ChannelNotConnectableError extends ParleyError {
  constructor(channelType: string) {
    super('CHANNEL_TYPE_NOT_CONNECTABLE', 400, `channel type ${channelType} takes no channel connections`);
    this.name = 'ChannelNotConnectableError';
  }
}

/** Missing required credentials or names the channel type does not take. */
export class InvalidCredentialsError extends ParleyError {
  constructor(channelType: string, missing: string[], unknown: string[]) {
    const parts = [
      ...(missing.length > 0 ? [`missing: ${missing.join(', ')}`] : []),
      ...(unknown.length > 0 ? [`not taken by ${channelType}: ${unknown.join(', ')}`] : []),
    ];
    super('INVALID_CREDENTIALS', 400, `invalid ${channelType} credentials (${parts.join('; ')})`, {
      details: { missing, unknown },
    });
    this.name = 'InvalidCredentialsError';
  }
}

/** Settings a channel type checks (the email channel's transport, host, addresses...) are invalid. */
export class InvalidSettingsError extends ParleyError {
  constructor(channelType: string, issues: { path: string; message: string }[]) {
    super(
      'INVALID_SETTINGS',
      400,
      `invalid ${channelType} settings (${issues.map((i) => `${i.path || 'settings'}: ${i.message}`).join('; ')})`,
      { details: { issues } },
    );
    this.name = 'InvalidSettingsError';
  }
}

/** An identifier the channel type cannot route by (an email connection's must be an address). */
export class InvalidIdentifierError extends ParleyError {
  constructor(channelType: string, message: string) {
    super('VALIDATION_ERROR', 400, `invalid ${channelType} externalIdentifier: ${message}`, {
      details: { field: 'externalIdentifier' },
    });
    this.name = 'InvalidIdentifierError';
  }
}

export class ProjectNotFoundError extends ParleyError {
  constructor() {
    super('PROJECT_NOT_FOUND', 404, 'Project not found');
    this.name = 'ProjectNotFoundError';
  }
}
