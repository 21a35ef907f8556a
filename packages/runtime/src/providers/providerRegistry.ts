import type { Config } from '@parley/platform';
import { ANTHROPIC_PROVIDER, createAnthropicProvider } from './anthropic/anthropicProvider.js';
import { createOpenAiCompatibleProvider } from './openai/openAiCompatibleProvider.js';
import { ProviderNotConfiguredError, UnknownProviderError } from './providerErrors.js';
import { createScriptedProvider } from './scripted/scriptedProvider.js';
import type { LlmProvider, ProviderRegistry } from './types.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ProviderRegistryOptions {
  /** The HTTP client of the openai-compatible provider (tests). */
  fetch?: typeof fetch;
  /** Per-call timeout of HTTP providers, ms (default LLM_TIMEOUT_MS, else 60 000). */
  timeoutMs?: number;
  /** Retries of the vendor SDKs (default LLM_MAX_RETRIES, else 2). */
  maxRetries?: number;
  /** Seed of the scripted provider. */
  seed?: number;
  /** Extra or replacement providers, by their `name`. */
  providers?: LlmProvider[];
}

export type ProviderConfig = Pick<Config, 'OPENAI_BASE_URL' | 'OPENAI_API_KEY'> &
  Partial<
    Pick<
      Config,
      | 'ANTHROPIC_API_KEY'
      | 'ANTHROPIC_BASE_URL'
      | 'ANTHROPIC_MAX_TOKENS'
      | 'LLM_TIMEOUT_MS'
      | 'LLM_MAX_RETRIES'
    >
  >;

/**
 * `scripted` always; `openai-compatible` when OPENAI_BASE_URL or OPENAI_API_KEY is set (the base
 * URL defaults to OpenAI's when only the key is); `anthropic` when ANTHROPIC_API_KEY is set.
 * Providers are built once and shared.
 */
export function createProviderRegistry(
  config: ProviderConfig,
  options: ProviderRegistryOptions = {},
): ProviderRegistry {
  const providers = new Map<string, LlmProvider>();
  providers.set('scripted', createScriptedProvider(options.seed === undefined ? {} : { seed: options.seed }));
  const timeoutMs = options.timeoutMs ?? config.LLM_TIMEOUT_MS;
  const maxRetries = options.maxRetries ?? config.LLM_MAX_RETRIES;
  const http = {
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
  };
  const openAiConfigured = config.OPENAI_BASE_URL !== undefined || config.OPENAI_API_KEY !== undefined;
  if (openAiConfigured) {
    providers.set(
      'openai-compatible',
      createOpenAiCompatibleProvider({
        baseUrl: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
        ...(config.OPENAI_API_KEY === undefined ? {} : { apiKey: config.OPENAI_API_KEY }),
        ...http,
      }),
    );
  }
  if (config.ANTHROPIC_API_KEY !== undefined) {
    providers.set(
      ANTHROPIC_PROVIDER,
      createAnthropicProvider({
        apiKey: config.ANTHROPIC_API_KEY,
        ...(config.ANTHROPIC_BASE_URL === undefined ? {} : { baseUrl: config.ANTHROPIC_BASE_URL }),
        ...(config.ANTHROPIC_MAX_TOKENS === undefined ? {} : { maxTokens: config.ANTHROPIC_MAX_TOKENS }),
        ...http,
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
      if (name === ANTHROPIC_PROVIDER) throw new ProviderNotConfiguredError(name, 'ANTHROPIC_API_KEY');
      throw new UnknownProviderError(name);
    },
    names: () => [...providers.keys()].sort(),
  };
}
