import { completeUsage } from '@parley/events';
import type { Logger } from '@parley/platform';
import type { PriceCards } from '../../pricing/index.js';
import type { LlmMessage, LlmProvider, LlmResponse, ToolDefinition } from '../../providers/types.js';
import { newLlmCallId } from '../ids.js';
import { cut } from './traceLog.js';
import { addUsage, json, type LlmCallData, type TurnContext, ZERO_USAGE } from './turnContext.js';

export interface ModelCall {
  /** The effective agent name recorded with the call. */
  agentName: string;
  provider: LlmProvider;
  model: string;
  messages: LlmMessage[];
  tools: ToolDefinition[];
  /** Ledger origin (spec 000 §4.3): `runtime` for the agent's own calls, `guardrails` for model checks. */
  source: 'runtime' | 'guardrails';
  sourceSubtype: 'response_generation' | 'tool_use_iteration' | 'guardrails';
  /** Streamed text deltas (main calls of a streamed turn only). */
  onDelta?: (delta: string) => void;
}

export interface ModelCallOutcome {
  response: LlmResponse;
  failed: boolean;
  /** The turn's signal aborted the call. */
  aborted: boolean;
}

/**
 * One LLM call as a stage: the provider asked; the call recorded, whatever came of it, as an
 * `llm_call` trace event and an LlmCallRecorded (cost from the current price card, payload when the
 * project stores payloads), plus an `error` trace event when it failed; one `usage` stream event
 * when it answered.
 */
export async function callModel(
  ctx: TurnContext,
  deps: { priceCards: PriceCards; logger: Logger },
  call: ModelCall,
): Promise<ModelCallOutcome> {
  const callId = newLlmCallId();
  const startedAt = ctx.now();
  const started = performance.now();
  let response: LlmResponse;
  let aborted = false;
  try {
    response = await call.provider.complete(
      {
        model: call.model,
        messages: call.messages,
        ...(call.tools.length === 0 ? {} : { tools: call.tools }),
        stream: ctx.stream && call.onDelta !== undefined,
        ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      },
      call.onDelta,
    );
  } catch (err) {
    aborted = ctx.signal?.aborted === true || (err instanceof Error && err.name === 'AbortError');
    const latencyMs = Math.round(performance.now() - started);
    response = {
      text: '',
      toolCalls: [],
      finishReason: 'error',
      usage: ZERO_USAGE,
      latencyMs,
      timeToFirstTokenMs: latencyMs,
      streamingUsed: ctx.stream,
      statusCode: 0,
      provider: call.provider.name,
      model: call.model,
      error: aborted
        ? { code: 'aborted', message: 'the turn was aborted' }
        : { code: 'provider_exception', message: err instanceof Error ? err.message : String(err) },
    };
    if (!aborted) {
      deps.logger.warn(
        { err, provider: call.provider.name, sessionId: ctx.scope.sessionId },
        'LLM provider threw',
      );
    }
  }
  const failed = response.finishReason === 'error';
  const usage = completeUsage(response.usage);
  ctx.usage = addUsage(ctx.usage, usage);
  const priced = deps.priceCards.cost(deps.priceCards.current(), response.model, usage);
  const spanId = ctx.trace.add({
    eventType: 'llm_call',
    name: response.model,
    status: failed ? 'error' : 'ok',
    llmCallId: callId,
    startedAt: startedAt.toISOString(),
    durationMs: response.latencyMs,
    attributes: {
      provider: response.provider,
      model: response.model,
      agent: call.agentName,
      source: call.source,
      sourceSubtype: call.sourceSubtype,
      finishReason: response.finishReason,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      streamingUsed: response.streamingUsed,
      ...(response.toolCalls.length === 0 ? {} : { toolCalls: response.toolCalls.map((c) => c.name) }),
    },
  });
  const record: LlmCallData = {
    callId,
    projectId: ctx.scope.projectId,
    tenantId: ctx.tenantId,
    sessionId: ctx.scope.sessionId,
    provider: response.provider,
    model: response.model,
    agentName: call.agentName,
    environment: ctx.session.environment,
    channel: ctx.session.channel,
    ...(ctx.session.channelType === undefined ? {} : { channelType: ctx.session.channelType }),
    status: failed ? 'failed' : 'success',
    statusCode: response.statusCode,
    streamingUsed: response.streamingUsed,
    cost: priced.cost,
    priceCardVersion: priced.priceCardVersion,
    source: call.source,
    sourceSubtype: call.sourceSubtype,
    traceId: ctx.trace.traceId,
    spanId,
    startedAt: startedAt.toISOString(),
    usage,
    latencyMs: response.latencyMs,
    timeToFirstTokenMs: response.timeToFirstTokenMs,
    ...(ctx.storePayloads
      ? {
          payload: json({
            prompt: { model: call.model, messages: call.messages, tools: call.tools },
            response: {
              text: response.text,
              toolCalls: response.toolCalls,
              finishReason: response.finishReason,
            },
          }) as LlmCallData['payload'],
        }
      : {}),
  };
  ctx.llmCalls.push(record);
  // A failed call ends the turn with an error: no usage of it reaches the stream (it opens nothing).
  if (!failed)
    ctx.onEvent?.({ type: 'usage', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
  if (failed) {
    ctx.trace.add({
      eventType: 'error',
      name: response.error?.code ?? 'provider_error',
      status: 'error',
      startedAt: ctx.now().toISOString(),
      attributes: {
        code: response.error?.code ?? 'provider_error',
        message: cut(response.error?.message ?? ''),
        provider: response.provider,
        statusCode: response.statusCode,
        ...(response.error?.retryAfterSeconds === undefined
          ? {}
          : { retryAfterSeconds: response.error.retryAfterSeconds }),
      },
    });
  }
  return { response, failed, aborted };
}
