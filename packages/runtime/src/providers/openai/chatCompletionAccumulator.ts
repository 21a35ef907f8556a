import type { LlmError, LlmUsage, ToolCall } from '../types.js';
import { chatCompletionChunkSchema, usageFromOpenAi } from './openAiShapes.js';

/** What one stream chunk added. */
export interface ChunkDelta {
  text: string;
  /** The chunk carried content or a tool call fragment (time to first token counts from it). */
  produced: boolean;
}

export interface AccumulatedCompletion {
  text: string;
  toolCalls: ToolCall[];
  /** As the server sent it; null when no chunk carried one (a stream cut short). */
  finishReason: string | null;
  /** From the chunk with usage (the last one, with `stream_options.include_usage`); absent if none came. */
  usage?: LlmUsage;
  model?: string;
  /** An `error` object sent inside the stream. */
  error?: LlmError;
}

export interface ChatCompletionAccumulator {
  /** One parsed `data:` JSON value of the stream. Values that are not chunks are ignored. */
  add(chunk: unknown): ChunkDelta;
  result(): AccumulatedCompletion;
}

/**
 * Folds chat.completion.chunk values into one completion: text deltas concatenated, tool calls
 * assembled by `index` (the first fragment brings id and name, later ones append to arguments).
 * Only choice 0 is read (Parley never asks for n > 1).
 */
export function createChatCompletionAccumulator(): ChatCompletionAccumulator {
  let text = '';
  let finishReason: string | null = null;
  let usage: LlmUsage | undefined;
  let model: string | undefined;
  let error: LlmError | undefined;
  const calls = new Map<number, { id: string; name: string; arguments: string }>();

  return {
    add(value) {
      const parsed = chatCompletionChunkSchema.safeParse(value);
      if (!parsed.success) return { text: '', produced: false };
      const chunk = parsed.data;
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = usageFromOpenAi(chunk.usage);
      if (chunk.error) {
        error = {
          code: 'stream_error',
          message: chunk.error.message ?? chunk.error.type ?? 'error in stream',
        };
      }
      let delta = '';
      let produced = false;
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        if (choice.finish_reason) finishReason = choice.finish_reason;
        const content = choice.delta?.content;
        if (content) {
          delta += content;
          produced = true;
        }
        for (const fragment of choice.delta?.tool_calls ?? []) {
          const index = fragment.index ?? 0;
          const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name && call.name === '') call.name = fragment.function.name;
          if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
          calls.set(index, call);
          produced = true;
        }
      }
      text += delta;
      return { text: delta, produced };
    },
    result() {
      const toolCalls = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => ({
          id: call.id || `call_${index}`,
          name: call.name,
          arguments: call.arguments,
        }));
      return {
        text,
        toolCalls,
        finishReason,
        ...(usage === undefined ? {} : { usage }),
        ...(model === undefined ? {} : { model }),
        ...(error === undefined ? {} : { error }),
      };
    },
  };
}
