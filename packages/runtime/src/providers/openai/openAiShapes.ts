import { z } from 'zod';
import type { FinishReason, LlmUsage } from '../types.js';

/**
 * The parts of OpenAI's chat completions responses Parley reads. Loose on purpose: compatible
 * servers add, omit or null fields, and unknown fields are ignored.
 */
const count = z.number().int().nonnegative().catch(0);

export const openAiUsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  total_tokens: count.optional(),
  prompt_tokens_details: z.object({ cached_tokens: count.optional() }).nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: count.optional() }).nullish(),
});
export type OpenAiUsage = z.infer<typeof openAiUsageSchema>;

export const openAiErrorSchema = z.object({
  message: z.string().nullish(),
  type: z.string().nullish(),
  code: z.union([z.string(), z.number()]).nullish(),
});

const toolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().optional(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const chatCompletionChunkSchema = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.number().int().optional(),
        delta: z
          .object({ content: z.string().nullish(), tool_calls: z.array(toolCallDeltaSchema).nullish() })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: openAiUsageSchema.nullish(),
  error: openAiErrorSchema.nullish(),
});
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;

export const chatCompletionSchema = z.object({
  model: z.string().nullish(),
  choices: z.array(
    z.object({
      index: z.number().int().optional(),
      message: z.object({
        content: z.string().nullish(),
        tool_calls: z
          .array(
            z.object({
              id: z.string(),
              function: z.object({ name: z.string(), arguments: z.string().nullish() }),
            }),
          )
          .nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: openAiUsageSchema.nullish(),
});

/**
 * OpenAI counts reasoning tokens inside completion_tokens (completion_tokens_details breaks them
 * out) and cached tokens inside prompt_tokens. Parley's usage keeps completionTokens for visible
 * tokens only, so completionTokens = completion_tokens - reasoning_tokens; the identities of
 * completeUsage hold (total = input + completion + reasoning, as OpenAI's total_tokens).
 */
export function usageFromOpenAi(usage: OpenAiUsage): LlmUsage {
  const inputTokens = usage.prompt_tokens;
  const cachedTokens = Math.min(usage.prompt_tokens_details?.cached_tokens ?? 0, inputTokens);
  const reasoningTokens = Math.min(
    usage.completion_tokens_details?.reasoning_tokens ?? 0,
    usage.completion_tokens,
  );
  const completionTokens = usage.completion_tokens - reasoningTokens;
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

/**
 * `content_filter` ends a reply the provider cut short on purpose; the text so far is the answer,
 * so it maps to `stop`. A reply cut by the token limit is `length`; else a reply with tool calls is `tool_calls` whatever the server says (some
 * compatible servers answer `stop`).
 */
export function finishReasonFromOpenAi(
  reason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (reason === 'length') return 'length';
  if (hasToolCalls) return 'tool_calls';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_calls';
  return 'stop';
}
