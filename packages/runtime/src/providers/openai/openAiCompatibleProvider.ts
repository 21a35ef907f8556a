import { estimateUsage, ZERO_USAGE } from '../estimateUsage.js';
import type { LlmError, LlmMessage, LlmProvider, LlmRequest, LlmResponse, ToolDefinition } from '../types.js';
import { createChatCompletionAccumulator } from './chatCompletionAccumulator.js';
import {
  chatCompletionSchema,
  finishReasonFromOpenAi,
  openAiErrorSchema,
  usageFromOpenAi,
} from './openAiShapes.js';
import { parseSseStream } from './sseParser.js';

export interface OpenAiCompatibleProviderOptions {
  /** Up to and including the version segment, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  /** Whole-call timeout, ms (default 60 000): the call fails with code `timeout`. */
  timeoutMs?: number;
  /** The provider name recorded with each call (default `openai-compatible`). */
  name?: string;
  now?: () => number;
}

const MAX_ERROR_BODY = 64 * 1024;

/**
 * POST /chat/completions. Streaming asks for `stream_options.include_usage`, so usage arrives in a
 * last chunk with no choices. Failures are answers, not exceptions (see LlmProvider); only the
 * caller's abort rejects.
 */
export function createOpenAiCompatibleProvider(options: OpenAiCompatibleProviderOptions): LlmProvider {
  const name = options.name ?? 'openai-compatible';
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const now = options.now ?? (() => performance.now());
  const redact = (message: string): string => {
    let out = message;
    if (options.apiKey) out = out.split(options.apiKey).join('[redacted]');
    return out.replace(/\bsk-[A-Za-z0-9_*-]{8,}/g, '[redacted]').slice(0, 500);
  };

  return {
    name,
    async complete(req, onDelta) {
      req.signal?.throwIfAborted();
      const startedAt = now();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = req.signal === undefined ? timeout : AbortSignal.any([req.signal, timeout]);
      const elapsed = () => Math.round(now() - startedAt);
      const failed = (statusCode: number, error: LlmError, partial?: Partial<LlmResponse>): LlmResponse => ({
        text: '',
        toolCalls: [],
        usage: { ...ZERO_USAGE },
        latencyMs: elapsed(),
        timeToFirstTokenMs: elapsed(),
        streamingUsed: req.stream,
        provider: name,
        model: req.model,
        ...partial,
        finishReason: 'error',
        statusCode,
        error: { ...error, message: redact(error.message) },
      });
      const thrown = (err: unknown, statusCode: number, partial?: Partial<LlmResponse>): LlmResponse => {
        if (req.signal?.aborted) throw req.signal.reason;
        if (timeout.aborted)
          return failed(
            statusCode,
            { code: 'timeout', message: `No complete answer within ${timeoutMs} ms` },
            partial,
          );
        const message = err instanceof Error ? err.message : String(err);
        return failed(
          statusCode,
          { code: statusCode === 0 ? 'connection_failed' : 'stream_error', message },
          partial,
        );
      };

      let response: Response;
      try {
        response = await doFetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: req.stream ? 'text/event-stream' : 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify(requestBody(req)),
          signal,
        });
      } catch (err) {
        return thrown(err, 0);
      }

      if (!response.ok) {
        const body = await readBounded(response).catch(() => '');
        return failed(response.status, {
          code: `http_${response.status}`,
          message: errorMessage(body) ?? (response.statusText || `HTTP ${response.status}`),
          ...retryAfter(response.headers.get('retry-after')),
        });
      }

      if (!req.stream) {
        let json: unknown;
        try {
          json = await response.json();
        } catch (err) {
          return thrown(err, response.status);
        }
        const parsed = chatCompletionSchema.safeParse(json);
        const choice = parsed.success ? parsed.data.choices[0] : undefined;
        if (!parsed.success || choice === undefined) {
          return failed(response.status, { code: 'invalid_response', message: 'Not a chat completion' });
        }
        const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments ?? '',
        }));
        const text = choice.message.content ?? '';
        const latencyMs = elapsed();
        return {
          text,
          toolCalls,
          finishReason: finishReasonFromOpenAi(choice.finish_reason, toolCalls.length > 0),
          ...usageOrEstimate(
            parsed.data.usage ? usageFromOpenAi(parsed.data.usage) : undefined,
            req,
            text,
            toolCalls,
          ),
          latencyMs,
          timeToFirstTokenMs: latencyMs,
          streamingUsed: false,
          statusCode: response.status,
          provider: name,
          model: parsed.data.model || req.model,
        };
      }

      const accumulator = createChatCompletionAccumulator();
      let firstTokenAt: number | undefined;
      let done = false;
      const partial = (): Partial<LlmResponse> => {
        const sofar = accumulator.result();
        return {
          text: sofar.text,
          ...(sofar.usage ? { usage: sofar.usage } : {}),
          ...(firstTokenAt === undefined ? {} : { timeToFirstTokenMs: Math.round(firstTokenAt - startedAt) }),
          model: sofar.model ?? req.model,
        };
      };
      try {
        if (response.body === null) throw new Error('empty body');
        for await (const event of parseSseStream(response.body)) {
          if (event.data === '[DONE]') {
            done = true;
            continue;
          }
          let chunk: unknown;
          try {
            chunk = JSON.parse(event.data);
          } catch {
            continue;
          }
          const delta = accumulator.add(chunk);
          if (delta.produced) firstTokenAt ??= now();
          if (delta.text !== '') onDelta?.(delta.text);
        }
      } catch (err) {
        return thrown(err, response.status, partial());
      }
      const result = accumulator.result();
      if (result.error) return failed(response.status, result.error, partial());
      if (!done && result.finishReason === null) {
        return failed(
          response.status,
          { code: 'incomplete_stream', message: 'The stream ended before the answer did' },
          partial(),
        );
      }
      const latencyMs = elapsed();
      return {
        text: result.text,
        toolCalls: result.toolCalls,
        finishReason: finishReasonFromOpenAi(result.finishReason, result.toolCalls.length > 0),
        ...usageOrEstimate(result.usage, req, result.text, result.toolCalls),
        latencyMs,
        timeToFirstTokenMs: firstTokenAt === undefined ? latencyMs : Math.round(firstTokenAt - startedAt),
        streamingUsed: true,
        statusCode: response.status,
        provider: name,
        model: result.model ?? req.model,
      };
    },
  };
}

function requestBody(req: LlmRequest): Record<string, unknown> {
  return {
    model: req.model,
    messages: req.messages.map(toOpenAiMessage),
    ...(req.tools?.length ? { tools: req.tools.map(toOpenAiTool) } : {}),
    stream: req.stream,
    ...(req.stream ? { stream_options: { include_usage: true } } : {}),
  };
}

function toOpenAiMessage(message: LlmMessage): Record<string, unknown> {
  if (message.role === 'tool')
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

const toOpenAiTool = (tool: ToolDefinition): Record<string, unknown> => ({
  type: 'function',
  function: {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  },
});

/** A server that ignores include_usage still gets a usage: our estimate, flagged. */
function usageOrEstimate(
  usage: LlmResponse['usage'] | undefined,
  req: LlmRequest,
  text: string,
  toolCalls: LlmResponse['toolCalls'],
): Pick<LlmResponse, 'usage' | 'usageEstimated'> {
  if (usage !== undefined) return { usage };
  return { usage: estimateUsage(req, { text, toolCalls }), usageEstimated: true };
}

/** The start of an error body: enough for the message, never a whole unbounded page. */
async function readBounded(response: Response): Promise<string> {
  if (response.body === null) return '';
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of response.body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length >= MAX_ERROR_BODY) break;
  }
  return text.slice(0, MAX_ERROR_BODY);
}

function errorMessage(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as { error?: unknown };
    const parsed = openAiErrorSchema.safeParse(json.error);
    return parsed.success ? (parsed.data.message ?? undefined) : undefined;
  } catch {
    return body.trim() === '' ? undefined : body.trim();
  }
}

/** Retry-After as seconds or an HTTP date. */
function retryAfter(header: string | null): { retryAfterSeconds?: number } {
  if (header === null) return {};
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return { retryAfterSeconds: Math.ceil(seconds) };
  const date = Date.parse(header);
  return Number.isNaN(date) ? {} : { retryAfterSeconds: Math.max(0, Math.ceil((date - Date.now()) / 1000)) };
}
