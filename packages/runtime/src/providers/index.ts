export {
  ANTHROPIC_API_VERSION,
  ANTHROPIC_PROVIDER,
  type AnthropicProviderOptions,
  createAnthropicProvider,
  DEFAULT_ANTHROPIC_BASE_URL,
} from './anthropic/anthropicProvider.js';
export { estimateTokens, estimateUsage, ZERO_USAGE } from './estimateUsage.js';
export {
  type ChatCompletionAccumulator,
  createChatCompletionAccumulator,
} from './openai/chatCompletionAccumulator.js';
export {
  createOpenAiCompatibleProvider,
  type OpenAiCompatibleProviderOptions,
} from './openai/openAiCompatibleProvider.js';
export { createSseParser, parseSseStream, type SseEvent, type SseParser } from './openai/sseParser.js';
export { ProviderNotConfiguredError, UnknownProviderError } from './providerErrors.js';
export {
  createProviderRegistry,
  DEFAULT_OPENAI_BASE_URL,
  type ProviderConfig,
  type ProviderRegistryOptions,
} from './providerRegistry.js';
export {
  parseScript,
  SCRIPT_END_TYPES,
  SCRIPT_KEYWORDS,
  type Script,
  type ScriptCommand,
} from './scripted/parseScript.js';
export {
  createScriptedProvider,
  SCRIPTED_MODEL,
  SCRIPTED_PROVIDER,
  type ScriptedProviderOptions,
} from './scripted/scriptedProvider.js';
export { toolCallsOf } from './scripted/scriptToolCalls.js';
export type {
  FinishReason,
  LlmError,
  LlmMessage,
  LlmProvider,
  LlmRequest,
  LlmResponse,
  LlmRole,
  LlmUsage,
  ProviderRegistry,
  ToolCall,
  ToolDefinition,
} from './types.js';
