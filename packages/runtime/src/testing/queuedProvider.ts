import { completeUsage } from '@parley/events';
import type { LlmProvider, LlmRequest, LlmResponse } from '../providers/types.js';

/** One answer of the queued provider: text, tool calls (arguments as objects), or a function of the request. */
export type QueuedAnswer =
  | { text?: string; toolCalls?: Array<{ name: string; arguments?: Record<string, unknown>; id?: string }> }
  | ((req: LlmRequest) => QueuedAnswer);

export interface QueuedProvider extends LlmProvider {
  /** Every request, in order. */
  readonly requests: LlmRequest[];
  queue(...answers: QueuedAnswer[]): void;
}

/**
 * Test-only: a model that answers what the test queued, in order (then plain text "done"), with
 * fixed usage (100 in, 10 out) so counts are predictable. Streams its text in one delta.
 */
export function createQueuedProvider(name = 'queued', model = 'queued-1'): QueuedProvider {
  const answers: QueuedAnswer[] = [];
  const requests: LlmRequest[] = [];
  let ids = 0;
  return {
    name,
    requests,
    queue: (...next) => {
      answers.push(...next);
    },
    async complete(req, onDelta): Promise<LlmResponse> {
      requests.push(structuredClone({ ...req, signal: undefined }));
      let answer = answers.shift() ?? { text: 'done' };
      while (typeof answer === 'function') answer = answer(req);
      const toolCalls = (answer.toolCalls ?? []).map((c) => ({
        id: c.id ?? `call_${++ids}`,
        name: c.name,
        arguments: JSON.stringify(c.arguments ?? {}),
      }));
      const text = answer.text ?? '';
      if (req.stream && text !== '') onDelta?.(text);
      return {
        text,
        toolCalls,
        finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        usage: completeUsage({ inputTokens: 100, completionTokens: 10 }),
        latencyMs: 1,
        timeToFirstTokenMs: 1,
        streamingUsed: req.stream,
        statusCode: 200,
        provider: name,
        model,
      };
    },
  };
}
