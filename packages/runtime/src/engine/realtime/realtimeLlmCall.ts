import { completeUsage } from '@parley/events';
import type { RuntimeParts } from '../turn/runtimeParts.js';
import { addUsage, json, type LlmCallData, type TurnContext } from '../turn/turnContext.js';
import type { RealtimeResponseFacts } from './realtimeTypes.js';

/** An `llm_call` span and an LlmCallRecorded (source `runtime`, subtype `realtime_response`). */
export function recordResponse(
  ctx: TurnContext,
  parts: RuntimeParts,
  agentName: string,
  prompt: { instructions: string; tools: string[] },
  r: RealtimeResponseFacts,
) {
  const usage = completeUsage({
    inputTokens: r.usage.inputTokens,
    cachedTokens: Math.min(r.usage.cachedTokens, r.usage.inputTokens),
    completionTokens: r.usage.outputTokens,
  });
  ctx.usage = addUsage(ctx.usage, usage);
  const failed = r.status === 'failed';
  const priced = parts.priceCards.cost(parts.priceCards.current(), r.model, usage);
  const callId = `llm_rt_${r.responseId}`.slice(0, 128);
  const spanId = ctx.trace.add({
    eventType: 'llm_call',
    name: r.model,
    status: failed ? 'error' : 'ok',
    llmCallId: callId,
    startedAt: r.startedAt.toISOString(),
    durationMs: r.latencyMs,
    attributes: {
      provider: r.provider,
      model: r.model,
      agent: agentName,
      source: 'runtime',
      sourceSubtype: 'realtime_response',
      responseId: r.responseId,
      finishReason: r.status,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      streamingUsed: true,
      ...(r.functionCalls.length === 0 ? {} : { toolCalls: r.functionCalls }),
      ...(r.error === undefined ? {} : { code: r.error.code, message: r.error.message.slice(0, 500) }),
    },
  });
  const record: LlmCallData = {
    callId,
    projectId: ctx.scope.projectId,
    tenantId: ctx.tenantId,
    sessionId: ctx.scope.sessionId,
    provider: r.provider,
    model: r.model,
    agentName,
    environment: ctx.session.environment,
    channel: ctx.session.channel,
    ...(ctx.session.channelType === undefined ? {} : { channelType: ctx.session.channelType }),
    status: failed ? 'failed' : 'success',
    statusCode: failed ? 0 : 200,
    streamingUsed: true,
    cost: priced.cost,
    priceCardVersion: priced.priceCardVersion,
    source: 'runtime',
    sourceSubtype: 'realtime_response',
    sourceId: r.responseId,
    traceId: ctx.trace.traceId,
    spanId,
    startedAt: r.startedAt.toISOString(),
    usage,
    latencyMs: r.latencyMs,
    timeToFirstTokenMs: r.timeToFirstAudioMs ?? r.latencyMs,
    ...(ctx.storePayloads
      ? {
          payload: json({
            // The model heard the caller's audio: the prompt is the session it ran in.
            prompt: {
              model: r.model,
              input: 'audio',
              instructions: prompt.instructions,
              tools: prompt.tools,
            },
            response: {
              id: r.responseId,
              status: r.status,
              transcript: r.transcript,
              functionCalls: r.functionCalls,
            },
          }) as LlmCallData['payload'],
        }
      : {}),
  };
  ctx.llmCalls.push(record);
}
