import { ParleyError } from '@parley/platform';

/** An agent names a provider Parley does not have. Codes are upper snake case, as every spec code. */
export class UnknownProviderError extends ParleyError {
  constructor(readonly provider: string) {
    super('UNKNOWN_PROVIDER', 400, `Unknown LLM provider "${provider}"`, { details: { provider } });
    this.name = 'UnknownProviderError';
  }
}

/** The provider exists but its configuration is missing (e.g. neither OPENAI_BASE_URL nor OPENAI_API_KEY). */
export class ProviderNotConfiguredError extends ParleyError {
  constructor(
    readonly provider: string,
    missing: string,
  ) {
    super('PROVIDER_NOT_CONFIGURED', 503, `LLM provider "${provider}" is not configured: set ${missing}`, {
      details: { provider },
    });
    this.name = 'ProviderNotConfiguredError';
  }
}
