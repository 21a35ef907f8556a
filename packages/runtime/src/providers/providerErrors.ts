import { ParleyError } from '@parley/platform';

/** An agent names a provider Parley does not have. */
export class UnknownProviderError extends ParleyError {
  constructor(readonly provider: string) {
    super('unknown_provider', 400, `Unknown LLM provider "${provider}"`, { details: { provider } });
    this.name = 'UnknownProviderError';
  }
}

/** The provider exists but its configuration is missing (e.g. neither OPENAI_BASE_URL nor OPENAI_API_KEY). */
export class ProviderNotConfiguredError extends ParleyError {
  constructor(
    readonly provider: string,
    missing: string,
  ) {
    super('provider_not_configured', 503, `LLM provider "${provider}" is not configured: set ${missing}`, {
      details: { provider },
    });
    this.name = 'ProviderNotConfiguredError';
  }
}
