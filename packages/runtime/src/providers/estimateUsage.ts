import type { LlmMessage, LlmUsage, ToolCall, ToolDefinition } from './types.js';

/**
 * A tokenizer-like estimate: about 4 characters per token (OpenAI's rule of thumb for English),
 * at least one token per non-empty text. Deterministic, so scripted usage is reproducible.
 */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

/** Chat formats add a few tokens per message (role, separators) and prime the reply with 3. */
const PER_MESSAGE_TOKENS = 4;
const REPLY_PRIMING_TOKENS = 3;
/** Prompt caching (as OpenAI does it): prefixes of at least 1024 tokens, in 128-token increments. */
const CACHE_MIN_TOKENS = 1024;
const CACHE_INCREMENT = 128;

const toolCallTokens = (calls: readonly ToolCall[] | undefined): number =>
  (calls ?? []).reduce((sum, call) => sum + estimateTokens(call.name) + estimateTokens(call.arguments), 0);

function messageTokens(message: LlmMessage): number {
  return PER_MESSAGE_TOKENS + estimateTokens(message.content) + toolCallTokens(message.toolCalls);
}

/**
 * Usage of a call as the scripted provider reports it. Cached tokens model prompt caching: the
 * prompt before the last user message (the part a previous turn already sent), rounded down to
 * 128-token increments once it reaches 1024 tokens. Reasoning tokens are given by the script.
 */
export function estimateUsage(
  request: { messages: readonly LlmMessage[]; tools?: readonly ToolDefinition[] | undefined },
  output: { text: string; toolCalls?: readonly ToolCall[]; reasoningTokens?: number },
): LlmUsage {
  const toolsTokens = request.tools?.length ? estimateTokens(JSON.stringify(request.tools)) : 0;
  let lastUser = -1;
  request.messages.forEach((message, index) => {
    if (message.role === 'user') lastUser = index;
  });
  let prefix = toolsTokens;
  let inputTokens = toolsTokens + REPLY_PRIMING_TOKENS;
  request.messages.forEach((message, index) => {
    const tokens = messageTokens(message);
    inputTokens += tokens;
    if (index < lastUser) prefix += tokens;
  });
  const cachedTokens =
    prefix >= CACHE_MIN_TOKENS ? Math.floor(prefix / CACHE_INCREMENT) * CACHE_INCREMENT : 0;
  const completionTokens = estimateTokens(output.text) + toolCallTokens(output.toolCalls);
  const reasoningTokens = output.reasoningTokens ?? 0;
  const outputTokens = completionTokens + reasoningTokens;
  return {
    inputTokens,
    cachedTokens,
    completionTokens,
    reasoningTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
  };
}

/** The usage of a call that failed: providers bill and report nothing for an error status. */
export const ZERO_USAGE: Readonly<LlmUsage> = Object.freeze({
  inputTokens: 0,
  cachedTokens: 0,
  completionTokens: 0,
  reasoningTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
});
