import type { LlmError, LlmUsage, ToolCall } from '../types.js';
import { type AnthropicUsage, anthropicStreamEventSchema, usageFromAnthropic } from './anthropicShapes.js';

export interface AnthropicStreamResult {
  text: string;
  toolCalls: ToolCall[];
  /** From message_delta; null when the stream ended before one came (cut short). */
  stopReason: string | null;
  /** Whether message_stop arrived. */
  stopped: boolean;
  usage?: LlmUsage;
  model?: string;
  error?: LlmError;
}

export interface AnthropicAccumulator {
  /** One parsed event of the stream; values that are not events are ignored. */
  add(event: unknown): { text: string; produced: boolean };
  result(): AnthropicStreamResult;
}

/**
 * Folds Messages API stream events into one answer: text deltas concatenated, each tool_use block
 * assembled from its content_block_start (id, name) and its input_json_delta fragments. Usage:
 * message_start brings the prompt's counts, message_delta the cumulative output count (and, on
 * newer API versions, cumulative input counts too), so the later non-null value of each count wins.
 */
export function createAnthropicAccumulator(): AnthropicAccumulator {
  let text = '';
  let stopReason: string | null = null;
  let stopped = false;
  let model: string | undefined;
  let error: LlmError | undefined;
  let usage: AnthropicUsage | undefined;
  const tools = new Map<number, { id: string; name: string; json: string }>();

  const mergeUsage = (next: AnthropicUsage | null | undefined) => {
    if (!next) return;
    const merged: AnthropicUsage = { ...(usage ?? next) };
    for (const key of Object.keys(next) as (keyof AnthropicUsage)[]) {
      if (next[key] !== null && next[key] !== undefined) (merged as Record<string, unknown>)[key] = next[key];
    }
    usage = merged;
  };

  return {
    add(value) {
      const parsed = anthropicStreamEventSchema.safeParse(value);
      if (!parsed.success) return { text: '', produced: false };
      const event = parsed.data;
      switch (event.type) {
        case 'message_start':
          if (event.message.model) model = event.message.model;
          mergeUsage(event.message.usage);
          return { text: '', produced: false };
        case 'content_block_start': {
          const block = event.content_block;
          if (block.type === 'tool_use' && 'id' in block && typeof block.id === 'string') {
            tools.set(event.index, { id: block.id, name: String(block.name), json: '' });
            return { text: '', produced: true };
          }
          if (
            block.type === 'text' &&
            'text' in block &&
            typeof block.text === 'string' &&
            block.text !== ''
          ) {
            text += block.text;
            return { text: block.text, produced: true };
          }
          return { text: '', produced: false };
        }
        case 'content_block_delta': {
          const delta = event.delta;
          if (delta.type === 'text_delta' && 'text' in delta && typeof delta.text === 'string') {
            text += delta.text;
            return { text: delta.text, produced: delta.text !== '' };
          }
          const tool = tools.get(event.index);
          if (delta.type === 'input_json_delta' && tool !== undefined && 'partial_json' in delta) {
            tool.json += String(delta.partial_json ?? '');
            return { text: '', produced: true };
          }
          return { text: '', produced: false };
        }
        case 'message_delta':
          if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
          mergeUsage(event.usage);
          return { text: '', produced: false };
        case 'message_stop':
          stopped = true;
          return { text: '', produced: false };
        case 'error':
          error = {
            code: 'stream_error',
            message: event.error.message ?? event.error.type ?? 'error in stream',
          };
          return { text: '', produced: false };
        case 'content_block_stop':
        case 'ping':
          return { text: '', produced: false };
        default: {
          const exhaustive: never = event;
          throw new Error(`unhandled stream event ${JSON.stringify(exhaustive)}`);
        }
      }
    },
    result() {
      const toolCalls = [...tools.entries()]
        .sort(([a], [b]) => a - b)
        // An empty input streams no fragment: `{}` is what the model sent.
        .map(([, t]) => ({ id: t.id, name: t.name, arguments: t.json === '' ? '{}' : t.json }));
      return {
        text,
        toolCalls,
        stopReason,
        stopped,
        ...(usage === undefined ? {} : { usage: usageFromAnthropic(usage) }),
        ...(model === undefined ? {} : { model }),
        ...(error === undefined ? {} : { error }),
      };
    },
  };
}
