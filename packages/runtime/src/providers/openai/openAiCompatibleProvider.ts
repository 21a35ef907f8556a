import OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { estimateUsage } from '../estimateUsage.js';
import {
  answerForThrown,
  type CallClock,
  callSignals,
  createRedactor,
  DEFAULT_PROVIDER_MAX_RETRIES,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  type FailureContext,
  failedAnswer,
  stoppedBySignal,
} from '../sdkFailure.js';
import type { LlmMessage, LlmProvider, LlmRequest, LlmResponse, ToolDefinition } from '../types.js';
import { createChatCompletionAccumulator } from './chatCompletionAccumulator.js';
import { chatCompletionSchema, finishReasonFromOpenAi, usageFromOpenAi } from './openAiShapes.js';

export interface OpenAiCompatibleProviderOptions {
  /** Up to and including the version segment, e.g. https://api.openai.com/v1; `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; absent: no authorization header (local servers). */
  apiKey?: string;
  fetch?: typeof fetch;
  /** Whole-call timeout, ms, retries included (default 60 000): the call fails with code `timeout`. */
  timeoutMs?: number;
  /** Retries the SDK makes on 408/409/429/5xx and connection errors, honouring Retry-After (default 2). */
  maxRetries?: number;
  /** The provider name recorded with each call (default `openai-compatible`). */
  name?: string;
  now?: () => number;
}

/**
 * OpenAI chat completions (and every server speaking them) through the official `openai` SDK.
 * Streaming asks for `stream_options.include_usage`, so usage arrives in a last chunk with no
 * choices; parallel tool calls are assembled by their `index`. Failures are answers, not
 * exceptions (see LlmProvider); only the caller's abort rejects.
 */
export function createOpenAiCompatibleProvider(options: OpenAiCompatibleProviderOptions): LlmProvider {
  const name = options.name ?? 'openai-compatible';
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  const now = options.now ?? (() => performance.now());
  const redact = createRedactor(options.apiKey);
  const client = new OpenAI({
    // The SDK insists on a key; a keyless server gets no authorization header at all.
    apiKey: options.apiKey ?? 'unused',
    ...(options.apiKey === undefined ? { defaultHeaders: { authorization: null } } : {}),
    baseURL: options.baseUrl.replace(/\/+$/, ''),
    organization: null,
    project: null,
    maxRetries: options.maxRetries ?? DEFAULT_PROVIDER_MAX_RETRIES,
    timeout: timeoutMs,
    logLevel: 'off',
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });

  return {
    name,
    async complete(req, onDelta) {
      req.signal?.throwIfAborted();
      const clock: CallClock = { startedAt: now(), now };
      const { signal, timeout } = callSignals(req, timeoutMs);
      const ctx: FailureContext = { req, provider: name, clock, timeout, timeoutMs, redact };
      return req.stream
        ? streamed(client, ctx, signal, onDelta)
        : await unstreamed(client, ctx, signal).catch((err: unknown) => answerForThrown(ctx, err, undefined));
    },
  };
}

async function unstreamed(client: OpenAI, ctx: FailureContext, signal: AbortSignal): Promise<LlmResponse> {
  const { req } = ctx;
  const { data, response } = await client.chat.completions
    .create({ ...requestBody(req), stream: false }, { signal })
    .withResponse();
  const parsed = chatCompletionSchema.safeParse(data);
  const choice = parsed.success ? parsed.data.choices[0] : undefined;
  if (!parsed.success || choice === undefined) {
    return failedAnswer(ctx, response.status, { code: 'invalid_response', message: 'Not a chat completion' });
  }
  const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({
    id: call.id,
    name: call.function.name,
    arguments: call.function.arguments ?? '',
  }));
  const text = choice.message.content ?? '';
  const latencyMs = Math.round(ctx.clock.now() - ctx.clock.startedAt);
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
    provider: ctx.provider,
    model: parsed.data.model || req.model,
  };
}

async function streamed(
  client: OpenAI,
  ctx: FailureContext,
  signal: AbortSignal,
  onDelta: ((text: string) => void) | undefined,
): Promise<LlmResponse> {
  const { req, clock } = ctx;
  const accumulator = createChatCompletionAccumulator();
  let firstTokenAt: number | undefined;
  let status: number | undefined;
  const partial = (): Partial<LlmResponse> => {
    const sofar = accumulator.result();
    return {
      text: sofar.text,
      ...(sofar.usage ? { usage: sofar.usage } : {}),
      ...(firstTokenAt === undefined
        ? {}
        : { timeToFirstTokenMs: Math.round(firstTokenAt - clock.startedAt) }),
      model: sofar.model ?? req.model,
    };
  };
  try {
    const { data: stream, response } = await client.chat.completions
      .create({ ...requestBody(req), stream: true, stream_options: { include_usage: true } }, { signal })
      .withResponse();
    status = response.status;
    for await (const chunk of stream) {
      const delta = accumulator.add(chunk);
      if (delta.produced) firstTokenAt ??= clock.now();
      if (delta.text !== '') onDelta?.(delta.text);
    }
  } catch (err) {
    return answerForThrown(ctx, err, status, partial());
  }
  const stopped = stoppedBySignal(ctx, status ?? 200, partial());
  if (stopped !== null) return stopped;
  const result = accumulator.result();
  if (result.error) return failedAnswer(ctx, status ?? 200, result.error, partial());
  if (result.finishReason === null) {
    return failedAnswer(
      ctx,
      status ?? 200,
      { code: 'incomplete_stream', message: 'The stream ended before the answer did' },
      partial(),
    );
  }
  const latencyMs = Math.round(clock.now() - clock.startedAt);
  return {
    text: result.text,
    toolCalls: result.toolCalls,
    finishReason: finishReasonFromOpenAi(result.finishReason, result.toolCalls.length > 0),
    ...usageOrEstimate(result.usage, req, result.text, result.toolCalls),
    latencyMs,
    timeToFirstTokenMs: firstTokenAt === undefined ? latencyMs : Math.round(firstTokenAt - clock.startedAt),
    streamingUsed: true,
    statusCode: status ?? 200,
    provider: ctx.provider,
    model: result.model ?? req.model,
  };
}

function requestBody(req: LlmRequest): ChatCompletionCreateParamsBase {
  return {
    model: req.model,
    messages: req.messages.map(toOpenAiMessage),
    ...(req.tools?.length ? { tools: req.tools.map(toOpenAiTool) } : {}),
  };
}

function toOpenAiMessage(message: LlmMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
    case 'assistant':
      if (message.toolCalls?.length) {
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
      return { role: 'assistant', content: message.content };
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    default: {
      const exhaustive: never = message.role;
      throw new Error(`unknown message role ${String(exhaustive)}`);
    }
  }
}

const toOpenAiTool = (tool: ToolDefinition): ChatCompletionTool => ({
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
