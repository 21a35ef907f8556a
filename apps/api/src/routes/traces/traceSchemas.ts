import { TRACE_EVENT_TYPES } from '@parley/events';
import { mediaResponse, textBody } from '@parley/http';
import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from './traceQueries.js';

/** The shapes of the trace routes for /openapi.json (the field lists: docs/traces.md). */

const multi = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(`${description} Comma-separated or repeated.`);
const single = (description: string) => z.string().optional().describe(description);
const paging = {
  limit: single(`Integer 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}.`),
  offset: single('Integer >= 0, default 0.'),
};
const dates = {
  fromDate: single('Inclusive ISO 8601 start on startedAt (no zone means UTC).'),
  toDate: single('Exclusive ISO 8601 end on startedAt.'),
};

export const projectParams = z.object({
  projectId: z.string().min(1).describe('Project id; the credential must reach it.'),
});
export const sessionParams = projectParams.extend({
  sessionId: z.string().describe('Session id, 1..256 characters.'),
});
export const spanParams = sessionParams.extend({ spanId: z.string().describe('Span id of a trace event.') });

export const tracesQuery = z.object({
  eventType: multi(`Trace event types: ${TRACE_EVENT_TYPES.join(', ')}.`),
  decisionKind: multi('Decision kinds, exact (for example handoff).'),
  include: single('`metrics` adds the session metrics (as GET …/metrics) under `metrics`.'),
  ...paging,
});
export const pagingQuery = z.object(paging);
export const exportQuery = z.object({
  format: single('`csv` (the only format; default csv).'),
  sessionId: multi('Sessions to export, up to 10,000; default every session of the project.'),
  eventType: multi('Trace event types.'),
  ...dates,
});
export const generationsQuery = z.object({
  ...dates,
  sessionId: multi('Session ids, up to 10,000.'),
  model: multi('Exact model ids.'),
  provider: multi('Exact providers.'),
  agentName: multi('Exact agent names.'),
  status: single('`success` or `failed`.'),
  ...paging,
});

const pagination = z.object({ total: z.int().min(0), limit: z.int().min(1), offset: z.int().min(0) });
const tokenCounts = {
  inputTokens: z.int(),
  cachedTokens: z.int(),
  completionTokens: z.int(),
  reasoningTokens: z.int(),
  outputTokens: z.int(),
  totalTokens: z.int(),
};
const llmCall = z.object({
  callId: z.string(),
  model: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.string(),
  ...tokenCounts,
  latencyMs: z.int(),
  timeToFirstTokenMs: z.int(),
  streamingUsed: z.boolean(),
  cost: z.number(),
});
export const traceEventShape = z.object({
  eventId: z.string(),
  sessionId: z.string(),
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().nullable(),
  eventType: z.enum(TRACE_EVENT_TYPES),
  name: z.string().nullable(),
  status: z.enum(['ok', 'error', 'blocked']).nullable(),
  decisionKind: z.string().nullable(),
  llmCallId: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.int().nullable(),
  attributes: z.record(z.string(), z.unknown()),
  childCount: z.int().min(0),
  llmCall: llmCall.nullable(),
});

export const metricsShape = z.object({
  eventCount: z.int(),
  eventCountByType: z.record(z.string(), z.int()),
  totalLatencyMs: z.number(),
  wallClockMs: z.number(),
  turnCount: z.int(),
  turns: z.array(
    z.object({
      spanId: z.string(),
      traceId: z.string(),
      eventType: z.string(),
      name: z.string().nullable(),
      startedAt: z.string(),
      latencyMs: z.number(),
      eventCount: z.int(),
      llmCallCount: z.int(),
      toolCallCount: z.int(),
      errorCount: z.int(),
    }),
  ),
  llmCallCount: z.int(),
  tokenUsage: z.object(tokenCounts),
  totalCost: z.number(),
  llmCalls: z.array(llmCall.extend({ spanId: z.string().nullable(), startedAt: z.string() })),
  toolCallCount: z.int(),
  toolSuccessCount: z.int(),
  toolSuccessRate: z.number().nullable(),
  guardrailEvaluationCount: z.int(),
  guardrailBlockCount: z.int(),
  guardrailBlockRate: z.number().nullable(),
  errorCount: z.int(),
  voiceCalls: z
    .array(
      z.object({
        callId: z.string(),
        status: z
          .string()
          .nullable()
          .describe('The latest lifecycle status (initiated, ringing, in-progress, completed, failed, …)'),
        statuses: z.array(z.object({ status: z.string(), at: z.string() })),
        durationMs: z.number().nullable(),
        firstResponseTimeMs: z.number().nullable(),
        meanResponseTimeMs: z.number().nullable(),
        turnCount: z.int().nullable(),
        sttConfidence: z.number().nullable(),
        bargeInRate: z.number().nullable(),
        silenceDurationMs: z.number().nullable(),
      }),
    )
    .describe('The session’s voice calls (docs/traces.md "Voice calls"); their events are not turns'),
});

export const tracePageShape = z.object({
  success: z.literal(true),
  sessionId: z.string(),
  traces: z.array(traceEventShape),
  pagination,
  hasMore: z.boolean(),
  metrics: metricsShape.optional().describe('With include=metrics only.'),
});
export const childrenShape = z.object({
  success: z.literal(true),
  sessionId: z.string(),
  span: traceEventShape,
  children: z.array(traceEventShape),
  pagination,
  hasMore: z.boolean(),
});
export const metricsBodyShape = z.object({
  success: z.literal(true),
  data: metricsShape.extend({ sessionId: z.string() }),
});
const spanIds = z.array(z.string());
export const analysisBodyShape = z.object({
  success: z.literal(true),
  data: z.object({
    sessionId: z.string(),
    slowSpans: z.array(
      z.object({
        eventId: z.string(),
        spanId: z.string(),
        eventType: z.string(),
        name: z.string().nullable(),
        durationMs: z.int(),
        rule: z.enum(['absolute', 'relative']),
        thresholdMs: z.number(),
      }),
    ),
    errorPatterns: z.array(
      z.object({
        eventType: z.string(),
        name: z.string().nullable(),
        code: z.string().nullable(),
        count: z.int(),
        firstAt: z.string(),
        lastAt: z.string(),
        spanIds,
      }),
    ),
    decisionAnomalies: z.array(
      z.object({
        kind: z.enum(['repeated_decision', 'handoff_loop', 'failed_decision', 'decision_without_kind']),
        message: z.string(),
        count: z.int(),
        spanIds,
        details: z.record(z.string(), z.unknown()),
      }),
    ),
    suggestions: z.array(
      z.object({ code: z.string(), message: z.string(), evidence: z.record(z.string(), z.unknown()) }),
    ),
    rules: z.record(z.string(), z.number()).describe('The thresholds the rules used (docs/traces.md).'),
  }),
});
export const generationShape = z.object({
  id: z.string(),
  callId: z.string(),
  sessionId: z.string(),
  traceId: z.string().nullable(),
  spanId: z.string().nullable(),
  eventId: z.string(),
  agentName: z.string(),
  provider: z.string().nullable(),
  model: z.string().nullable(),
  status: z.string(),
  statusCode: z.int(),
  environment: z.string().nullable(),
  channel: z.string().nullable(),
  channelType: z.string().nullable(),
  ...tokenCounts,
  latencyMs: z.int(),
  timeToFirstTokenMs: z.int(),
  streamingUsed: z.boolean(),
  cost: z.number(),
  priceCardVersion: z.string().nullable(),
  source: z.string(),
  sourceSubtype: z.string(),
  startedAt: z.string(),
  promptMetadata: z.object({
    stored: z.boolean(),
    messageCount: z.int().nullable(),
    toolCount: z.int().nullable(),
    promptBytes: z.int().nullable(),
    responseBytes: z.int().nullable(),
  }),
});
export const generationsPageShape = z.object({
  success: z.literal(true),
  generations: z.array(generationShape),
  pagination,
  hasMore: z.boolean(),
});
export const csvShape = mediaResponse(
  'text/csv (RFC 4180): a header record, then one record per trace event',
  { 'text/csv': textBody },
);
