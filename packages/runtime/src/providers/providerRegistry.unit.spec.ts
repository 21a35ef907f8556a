import { describe, expect, it } from 'vitest';
import { ProviderNotConfiguredError, UnknownProviderError } from './providerErrors.js';
import { createProviderRegistry } from './providerRegistry.js';
import type { LlmProvider } from './types.js';

describe('provider registry', () => {
  it('always has the scripted provider; openai-compatible and anthropic only when configured', () => {
    const bare = createProviderRegistry({ OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined });
    expect(bare.names()).toEqual(['scripted']);
    expect(bare.get('scripted').name).toBe('scripted');
    expect(() => bare.get('openai-compatible')).toThrow(ProviderNotConfiguredError);
    expect(() => bare.get('anthropic')).toThrow(ProviderNotConfiguredError);
    expect(() => bare.get('gemini')).toThrow(UnknownProviderError);

    const local = createProviderRegistry({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_API_KEY: undefined,
    });
    expect(local.names()).toEqual(['openai-compatible', 'scripted']);
    expect(local.get('openai-compatible')).toBe(local.get('openai-compatible'));

    const both = createProviderRegistry({
      OPENAI_BASE_URL: undefined,
      OPENAI_API_KEY: 'sk-x',
      ANTHROPIC_API_KEY: 'sk-ant-x',
    });
    expect(both.names()).toEqual(['anthropic', 'openai-compatible', 'scripted']);
  });

  it('uses OpenAI when only a key is set, with the given fetch', async () => {
    const urls: string[] = [];
    const fetchStub: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ error: { message: 'nope' } }), { status: 503 });
    };
    const registry = createProviderRegistry(
      { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: 'sk-x' },
      { fetch: fetchStub, maxRetries: 0 },
    );
    const response = await registry
      .get('openai-compatible')
      .complete({ model: 'gpt-4o', messages: [], stream: false });
    expect(urls).toEqual(['https://api.openai.com/v1/chat/completions']);
    expect(response).toMatchObject({
      statusCode: 503,
      finishReason: 'error',
      error: { code: 'http_503', message: 'nope' },
    });
  });

  it('extra providers are added by name', () => {
    const echo: LlmProvider = { name: 'echo', complete: async () => Promise.reject(new Error('unused')) };
    const registry = createProviderRegistry(
      { OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined },
      { providers: [echo] },
    );
    expect(registry.get('echo')).toBe(echo);
    expect(new UnknownProviderError('x')).toMatchObject({ code: 'UNKNOWN_PROVIDER', status: 400 });
    expect(new ProviderNotConfiguredError('openai-compatible', 'OPENAI_API_KEY')).toMatchObject({
      code: 'PROVIDER_NOT_CONFIGURED',
      status: 503,
    });
  });
});
