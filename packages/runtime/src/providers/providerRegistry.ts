import type { Config } from '@parley/platform';
import { createOpenAiCompatibleProvider } from './openai/openAiCompatibleProvider.js';
import { ProviderNotConfiguredError, UnknownProviderError } from './providerErrors.js';
import { createScriptedProvider } from './scripted/scriptedProvider.js';
import type { LlmProvider, ProviderRegistry } from './types.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ProviderRegistryOptions {
  /** The HTTP client of the openai-compatible provider (tests). */
  fetch?: typeof fetch;
  /** Per-call timeout of HTTP providers, ms (default 60 000). */
  timeoutMs?: number;
  /** Seed of the scripted provider. */
  seed?: number;
  /** Extra or replacement providers, by their `name`. */
  providers?: LlmProvider[];
}

/**
 * `scripted` always; `openai-compatible` when OPENAI_BASE_URL or OPENAI_API_KEY is set (the base
 * URL defaults to OpenAI's when only the key is). Providers are built once and shared.
 */
export function createProviderRegistry(
  config: Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY'>,
  options: ProviderRegistryOptions = {},
): ProviderRegistry {
  const providers = new Map<string, LlmProvider>();
  providers.set('scripted', createScriptedProvider(options.seed === undefined ? {} : { seed: options.seed }));
  const openAiConfigured = config.OPENAI_BASE_URL !== undefined || config.OPENAI_API_KEY !== undefined;
  if (openAiConfigured) {
    providers.set(
      'openai-compatible',
      createOpenAiCompatibleProvider({
        baseUrl: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
        ...(config.OPENAI_API_KEY === undefined ? {} : { apiKey: config.OPENAI_API_KEY }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      }),
    );
  }
  for (const provider of options.providers ?? []) providers.set(provider.name, provider);

  return {
    get(name) {
      const provider = providers.get(name);
      if (provider !== undefined) return provider;
      if (name === 'openai-compatible') {
        throw new ProviderNotConfiguredError(name, 'OPENAI_BASE_URL or OPENAI_API_KEY');
      }
      throw new UnknownProviderError(name);
    },
    names: () => [...providers.keys()].sort(),
  };
}
