import { createHash } from 'node:crypto';
import type { LlmCallRecordedData, TraceEventRecordedData, VoiceCallStatusChangedData } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';
import { llmCallRowValues } from '@parley/projection-llm-ledger/llmCallColumns';

/** The `trace_events` row of one TraceEventRecorded (see tracesProjection). */
export function traceEventRow(trace: TraceEventRecordedData, event: RecordedEvent) {
  const startedAt = new Date(trace.startedAt);
  return {
    project_id: trace.projectId,
    session_id: trace.sessionId,
    event_id: event.eventId,
    // The event's place in its stream: the order of events that started in the same millisecond.
    seq: Number(event.revision),
    trace_id: trace.traceId,
    span_id: trace.spanId,
    parent_span_id: trace.parentSpanId ?? null,
    event_type: trace.eventType,
    name: trace.name ?? null,
    status: trace.status ?? null,
    decision_kind: trace.decisionKind ?? null,
    llm_call_id: trace.llmCallId ?? null,
    started_at: startedAt,
    duration_ms: trace.durationMs ?? null,
    ended_at: trace.durationMs === undefined ? null : new Date(startedAt.getTime() + trace.durationMs),
    attributes: trace.attributes ?? {},
  };
}

/** The trace event name of a call's lifecycle status (docs/traces.md "Voice calls"). */
export const VOICE_CALL_STATUS_TRACE = 'voice_call_status';
/** Statuses of a call that never connected or broke: the row's status is `error`. */
const FAILED_CALL_STATUSES = new Set(['failed', 'busy', 'no-answer', 'canceled']);
const hex = (text: string, length: number) =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * The `trace_events` row of a VoiceCallStatusChanged with a session (docs/traces.md "Voice calls"):
 * a `state_change` named `voice_call_status` to the status, at the time the provider gives (else
 * when Parley heard of it); one trace per call (trace id derived from the call id), the call's
 * duration as durationMs of the status that reports it.
 */
export function callStatusRow(
  call: VoiceCallStatusChangedData & { sessionId: string },
  event: RecordedEvent,
) {
  const startedAt = new Date(call.occurredAt ?? call.reportedAt);
  const durationMs = call.durationSeconds === undefined ? null : call.durationSeconds * 1000;
  return {
    project_id: call.projectId,
    session_id: call.sessionId,
    event_id: event.eventId,
    seq: Number(event.revision),
    trace_id: hex(`voice-call:${call.callId}`, 32),
    span_id: hex(`voice-call-status:${event.eventId}`, 16),
    parent_span_id: null,
    event_type: 'state_change',
    name: VOICE_CALL_STATUS_TRACE,
    status: FAILED_CALL_STATUSES.has(call.status) ? 'error' : 'ok',
    decision_kind: null,
    llm_call_id: null,
    started_at: startedAt,
    duration_ms: durationMs,
    ended_at: durationMs === null ? null : new Date(startedAt.getTime() + durationMs),
    attributes: {
      callId: call.callId,
      to: call.status,
      accountId: call.accountId,
      ...(call.direction === undefined ? {} : { direction: call.direction }),
      ...(call.durationSeconds === undefined ? {} : { durationSeconds: call.durationSeconds }),
      ...(call.sequenceNumber === undefined ? {} : { sequenceNumber: call.sequenceNumber }),
      ...(call.errorCode === undefined ? {} : { errorCode: call.errorCode }),
    },
  };
}

/** What the trace APIs say about a prompt without returning it (spec 001 §4.8 "prompt metadata"). */
export interface PromptMetadata {
  /** Whether the call's prompt and response were recorded (the project's payload setting). */
  stored: boolean;
  /** Messages in the prompt: its length when it is a list, or the length of its `messages` list. */
  messageCount: number | null;
  /** Tool definitions offered with the prompt (`tools` list of the prompt object), when given. */
  toolCount: number | null;
  /** UTF-8 bytes of the prompt's and the response's JSON. */
  promptBytes: number | null;
  responseBytes: number | null;
}

const listLength = (value: unknown): number | null => (Array.isArray(value) ? value.length : null);
const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

export function promptMetadata(payload: LlmCallRecordedData['payload']): PromptMetadata {
  if (payload === undefined) {
    return { stored: false, messageCount: null, toolCount: null, promptBytes: null, responseBytes: null };
  }
  const { prompt, response } = payload;
  return {
    stored: true,
    messageCount: listLength(prompt) ?? listLength(field(prompt, 'messages')),
    toolCount: listLength(field(prompt, 'tools')),
    promptBytes: bytes(prompt),
    responseBytes: bytes(response),
  };
}

/** The `trace_generations` row of one LlmCallRecorded made in a session. */
export function generationRow(call: LlmCallRecordedData & { sessionId: string }, event: RecordedEvent) {
  const prompt = promptMetadata(call.payload);
  return {
    project_id: call.projectId,
    session_id: call.sessionId,
    ...llmCallRowValues(call, event.eventId),
    span_id: call.spanId ?? null,
    provider: call.provider ?? null,
    model: call.model ?? null,
    environment: call.environment ?? null,
    channel: call.channel ?? null,
    price_card_version: call.priceCardVersion ?? null,
    source: call.source,
    source_subtype: call.sourceSubtype,
    prompt_stored: prompt.stored,
    prompt_message_count: prompt.messageCount,
    prompt_tool_count: prompt.toolCount,
    prompt_bytes: prompt.promptBytes,
    response_bytes: prompt.responseBytes,
  };
}
