import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
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
import type { LlmProvider, LlmResponse, ToolCall } from '../types.js';
import { createAnthropicAccumulator } from './anthropicAccumulator.js';
import { toAnthropicRequest } from './anthropicRequest.js';
import { anthropicMessageSchema, finishReasonFromAnthropic, usageFromAnthropic } from './anthropicShapes.js';

export const ANTHROPIC_PROVIDER = 'anthropic';
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
/** The Messages API requires max_tokens; Parley asks for this many unless configured otherwise. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;
/**
 * The API version Parley speaks, pinned: the wire format its tests replay (tool_use and
 * tool_result blocks, the streaming events, `x-api-key`), whatever version a newer SDK defaults to.
 */
export const ANTHROPIC_API_VERSION = '2023-06-01';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Default https://api.anthropic.com (the SDK appends /v1/messages). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Whole-call timeout, ms, retries included (default 60 000). */
  timeoutMs?: number;
  /** Retries the SDK makes on 408/409/429/5xx (529 overloaded included), honouring Retry-After (default 2). */
  maxRetries?: number;
  maxTokens?: number;
  name?: string;
  now?: () => number;
}

/**
 * Anthropic's Messages API through the official `@anthropic-ai/sdk`: tool definitions as
 * `input_schema`, tool calls as `tool_use` blocks, results as `tool_result` blocks, streaming as
 * server-sent events folded by createAnthropicAccumulator. Failures are answers (LlmProvider).
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): LlmProvider {
  const name = options.name ?? ANTHROPIC_PROVIDER;
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  const now = options.now ?? (() => performance.now());
  const redact = createRedactor(options.apiKey);
  const client = new Anthropic({
    apiKey: options.apiKey,
    authToken: null,
    // The key goes in x-api-key as the pinned version documents it (never as a bearer token too).
    defaultHeaders: {
      'x-api-key': options.apiKey,
      'anthropic-version': ANTHROPIC_API_VERSION,
      authorization: null,
    },
    baseURL: (options.baseUrl ?? DEFAULT_ANTHROPIC_BASE_URL).replace(/\/+$/, ''),
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
      const body = toAnthropicRequest(req, maxTokens) as unknown as MessageCreateParamsNonStreaming;
      if (req.stream) return streamed(client, ctx, body, signal, onDelta);
      try {
        const { data, response } = await client.messages.create(body, { signal }).withResponse();
        return answerOf(ctx, data, response.status);
      } catch (err) {
        return answerForThrown(ctx, err, undefined);
      }
    },
  };
}

function answerOf(ctx: FailureContext, data: unknown, status: number): LlmResponse {
  const parsed = anthropicMessageSchema.safeParse(data);
  if (!parsed.success) {
    return failedAnswer(ctx, status, { code: 'invalid_response', message: 'Not a Messages API message' });
  }
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of parsed.data.content) {
    if (block.type === 'text' && 'text' in block) text += String(block.text);
    else if (block.type === 'tool_use' && 'id' in block) {
      toolCalls.push({
        id: String(block.id),
        name: String(block.name),
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  const latencyMs = Math.round(ctx.clock.now() - ctx.clock.startedAt);
  return {
    text,
    toolCalls,
    finishReason: finishReasonFromAnthropic(parsed.data.stop_reason, toolCalls.length > 0),
    usage: usageFromAnthropic(parsed.data.usage ?? {}),
    latencyMs,
    timeToFirstTokenMs: latencyMs,
    streamingUsed: false,
    statusCode: status,
    provider: ctx.provider,
    model: parsed.data.model || ctx.req.model,
  };
}

async function streamed(
  client: Anthropic,
  ctx: FailureContext,
  body: MessageCreateParamsNonStreaming,
  signal: AbortSignal,
  onDelta: ((text: string) => void) | undefined,
): Promise<LlmResponse> {
  const { clock, req } = ctx;
  const accumulator = createAnthropicAccumulator();
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
    const { data: stream, response } = await client.messages
      .create({ ...body, stream: true }, { signal })
      .withResponse();
    status = response.status;
    for await (const event of stream) {
      const delta = accumulator.add(event);
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
  if (result.stopReason === null) {
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
    finishReason: finishReasonFromAnthropic(result.stopReason, result.toolCalls.length > 0),
    usage: result.usage ?? usageFromAnthropic({}),
    latencyMs,
    timeToFirstTokenMs: firstTokenAt === undefined ? latencyMs : Math.round(firstTokenAt - clock.startedAt),
    streamingUsed: true,
    statusCode: status ?? 200,
    provider: ctx.provider,
    model: result.model ?? req.model,
  };
}
