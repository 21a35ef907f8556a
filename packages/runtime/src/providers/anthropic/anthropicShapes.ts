import { z } from 'zod';
import type { FinishReason, LlmUsage } from '../types.js';

/**
 * The parts of Anthropic's Messages API answers Parley reads (POST /v1/messages, JSON or the
 * server-sent events of `stream: true`). Loose on purpose: unknown fields and block types are
 * ignored, missing counts read as 0.
 */
const count = z.number().int().nonnegative().nullish().catch(null);

export const anthropicUsageSchema = z.object({
  input_tokens: count,
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
  output_tokens: count,
  output_tokens_details: z.object({ thinking_tokens: count }).nullish().catch(null),
});
export type AnthropicUsage = z.infer<typeof anthropicUsageSchema>;

const contentBlockSchema = z.union([
  z.object({ type: z.literal('text'), text: z.string().catch('') }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.object({ type: z.string() }).loose(),
]);

export const anthropicMessageSchema = z.object({
  model: z.string().nullish(),
  content: z.array(contentBlockSchema),
  stop_reason: z.string().nullish(),
  usage: anthropicUsageSchema.nullish(),
});

export const anthropicStreamEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    message: z.object({ model: z.string().nullish(), usage: anthropicUsageSchema.nullish() }),
  }),
  z.object({
    type: z.literal('content_block_start'),
    index: z.number().int(),
    content_block: contentBlockSchema,
  }),
  z.object({
    type: z.literal('content_block_delta'),
    index: z.number().int(),
    delta: z.union([
      z.object({ type: z.literal('text_delta'), text: z.string() }),
      z.object({ type: z.literal('input_json_delta'), partial_json: z.string().catch('') }),
      z.object({ type: z.string() }).loose(),
    ]),
  }),
  z.object({ type: z.literal('content_block_stop'), index: z.number().int() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullish() }).loose(),
    usage: anthropicUsageSchema.nullish(),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({
    type: z.literal('error'),
    error: z.object({ type: z.string().nullish(), message: z.string().nullish() }).loose(),
  }),
]);
export type AnthropicStreamEvent = z.infer<typeof anthropicStreamEventSchema>;

/**
 * Anthropic counts cached prompt tokens apart from `input_tokens` (cache reads and cache writes);
 * Parley's inputTokens counts every prompt token, so it is their sum, and cachedTokens the cache
 * reads. `output_tokens` includes thinking (`output_tokens_details.thinking_tokens`), split out as
 * reasoningTokens; the identities of completeUsage hold.
 */
export function usageFromAnthropic(usage: AnthropicUsage): LlmUsage {
  const cachedTokens = usage.cache_read_input_tokens ?? 0;
  const inputTokens = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + cachedTokens;
  const output = usage.output_tokens ?? 0;
  const reasoningTokens = Math.min(usage.output_tokens_details?.thinking_tokens ?? 0, output);
  const completionTokens = output - reasoningTokens;
  return {
    inputTokens,
    cachedTokens,
    completionTokens,
    reasoningTokens,
    outputTokens: completionTokens + reasoningTokens,
    totalTokens: inputTokens + completionTokens + reasoningTokens,
  };
}

/** `tool_use` asks for tools; `max_tokens` (and a full context window) cut the answer; the rest end it. */
export function finishReasonFromAnthropic(
  reason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (hasToolCalls || reason === 'tool_use') return 'tool_calls';
  return 'stop';
}
