import { z } from 'zod';
import { defineEvent, defineUpcaster } from '../defineEvent.js';
import {
  amountSchema,
  channelSchema,
  countSchema,
  durationMsSchema,
  environmentSchema,
  idSchema,
  jsonValueSchema,
  timestampSchema,
} from './common.js';

/**
 * LlmCallRecorded: one call to a model, the source of the LLM ledger (spec 000 §2.3) and of the
 * session token counts (spec 000 §2.2). Appended to `session-<sessionId>` when the call belongs
 * to a session, otherwise to `llm-<projectId>` (design-time calls); see streamForLlmCall.
 */

/**
 * Token usage. The identities, which producers keep by building it with completeUsage:
 * - inputTokens counts every prompt token, cachedTokens included (cachedTokens <= inputTokens);
 * - completionTokens counts the visible generated tokens, reasoningTokens the hidden ones;
 * - outputTokens = completionTokens + reasoningTokens;
 * - totalTokens = inputTokens + outputTokens.
 * The schema does not enforce them: usage is recorded as it was computed, and events upcast from
 * v1 keep the total the provider reported.
 */
export const tokenUsageSchema = z.object({
  inputTokens: countSchema,
  cachedTokens: countSchema,
  completionTokens: countSchema,
  reasoningTokens: countSchema,
  outputTokens: countSchema,
  totalTokens: countSchema,
});
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

export function completeUsage(counts: {
  inputTokens: number;
  cachedTokens?: number;
  completionTokens: number;
  reasoningTokens?: number;
}): TokenUsage {
  const { inputTokens, cachedTokens = 0, completionTokens, reasoningTokens = 0 } = counts;
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

export const LLM_CALL_STATUSES = ['success', 'failed'] as const;

/** Fields that version 1 and version 2 share. */
const llmCallFields = {
  callId: idSchema,
  projectId: idSchema,
  tenantId: idSchema.optional(),
  /** Absent for calls outside any session (design-time calls). */
  sessionId: idSchema.optional(),
  /** As recorded; absent when unknown (the ledger shows `unknown`). */
  provider: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** The effective agent name. */
  agentName: z.string().min(1),
  /** Design-time calls carry no environment, channel or channel type. */
  environment: environmentSchema.optional(),
  channel: channelSchema.optional(),
  channelType: z.string().min(1).max(128).optional(),
  status: z.enum(LLM_CALL_STATUSES),
  /** Provider HTTP status, 200 on success; 0 when no response came back (timeout, connection error). */
  statusCode: z.int().min(0).max(599),
  streamingUsed: z.boolean(),
  /** Cost of the call in USD, computed when it was recorded (so a later price change does not rewrite history). */
  cost: amountSchema,
  /** Which price card priced the call. */
  priceCardVersion: z.string().min(1).optional(),
  /** Origin and purpose of the call (spec 000 §4.3 source / sourceSubtype values), as recorded. */
  source: z.string().min(1),
  sourceSubtype: z.string().min(1),
  /** The id of the originating object (eval, pipeline, prompt...), when there is one. */
  sourceId: z.string().min(1).optional(),
  traceId: idSchema.optional(),
  spanId: idSchema.optional(),
  startedAt: timestampSchema,
  /** Prompt sent and response received, only where the project stores payloads (dataMode=full). */
  payload: z.object({ prompt: jsonValueSchema, response: jsonValueSchema }).optional(),
};

export const llmCallRecordedSchema = z.object({
  ...llmCallFields,
  usage: tokenUsageSchema,
  latencyMs: durationMsSchema,
  /** Equal to latencyMs for a call that was not streamed. */
  timeToFirstTokenMs: durationMsSchema,
});
export type LlmCallRecordedData = z.infer<typeof llmCallRecordedSchema>;

/** Version 1: flat token counts, latencies in seconds. Read only through the upcaster. */
export const llmCallRecordedV1Schema = z.object({
  ...llmCallFields,
  promptTokens: countSchema,
  /** Every generated token; v1 did not split out reasoning tokens. */
  completionTokens: countSchema,
  totalTokens: countSchema,
  /** Seconds. */
  latency: z.number().nonnegative(),
  /** Seconds; recorded for streamed calls only. */
  timeToFirstToken: z.number().nonnegative().optional(),
});
export type LlmCallRecordedV1Data = z.infer<typeof llmCallRecordedV1Schema>;

const secondsToMs = (seconds: number): number => Math.round(seconds * 1000);

/**
 * v1 -> v2. v1 knew neither cached nor reasoning tokens, so both are 0 and every generated token
 * is a completion token: inputTokens = promptTokens, completionTokens = outputTokens =
 * v1 completionTokens. totalTokens stays what v1 recorded. latencyMs = round(latency * 1000);
 * timeToFirstTokenMs = round(timeToFirstToken * 1000), or latencyMs when v1 had none (a call that
 * was not streamed delivers its first token with the whole response).
 */
export const upcastLlmCallRecordedV1 = defineUpcaster({
  from: llmCallRecordedV1Schema,
  to: llmCallRecordedSchema,
  up: ({ promptTokens, completionTokens, totalTokens, latency, timeToFirstToken, ...rest }) => {
    const latencyMs = secondsToMs(latency);
    return {
      ...rest,
      usage: {
        inputTokens: promptTokens,
        cachedTokens: 0,
        completionTokens,
        reasoningTokens: 0,
        outputTokens: completionTokens,
        totalTokens,
      },
      latencyMs,
      timeToFirstTokenMs: timeToFirstToken === undefined ? latencyMs : secondsToMs(timeToFirstToken),
    };
  },
});

export const llmCallRecorded = defineEvent({
  type: 'LlmCallRecorded',
  schemaVersion: 2,
  schema: llmCallRecordedSchema,
  upcasters: [upcastLlmCallRecordedV1],
});
