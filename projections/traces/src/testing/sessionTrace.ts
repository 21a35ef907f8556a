import { type EventDataInput, toAppend } from '@parley/events';
import { eventExamples } from '@parley/events/testing';
import type { EventToAppend } from '@parley/eventstore';

export type TraceInput = EventDataInput<'TraceEventRecorded'>;
export type CallInput = EventDataInput<'LlmCallRecorded'>;

const at = (ms: number) => new Date(Date.UTC(2026, 10, 21, 9, 0, 0) + ms).toISOString();

/**
 * A realistic two-turn session: turn 1 = response → llm_call, tool_call (ok) + tool_result, a
 * guardrail pass, a handoff decision; turn 2 = response → llm_call (slow, failed), tool_call
 * (error), guardrail block, error. Every trace event type appears at least once.
 */
export function exampleSession(
  projectId: string,
  sessionId: string,
): { stream: string; events: EventToAppend[] } {
  const scope = { projectId, sessionId, traceId: `trace-${sessionId}` };
  const trace = (t: Omit<TraceInput, 'projectId' | 'sessionId' | 'traceId'>) =>
    toAppend('TraceEventRecorded', { ...scope, ...t });
  const call = (c: Partial<CallInput> & Pick<CallInput, 'callId' | 'startedAt'>) =>
    toAppend('LlmCallRecorded', {
      ...eventExamples.LlmCallRecorded,
      projectId,
      sessionId,
      traceId: scope.traceId,
      ...c,
    });
  const events = [
    toAppend('SessionStarted', { ...eventExamples.SessionStarted, projectId, sessionId, startedAt: at(0) }),
    trace({
      spanId: 'turn-1',
      eventType: 'response',
      name: 'billing-assistant',
      status: 'ok',
      startedAt: at(10),
      durationMs: 1500,
    }),
    trace({
      spanId: 'llm-1',
      parentSpanId: 'turn-1',
      eventType: 'llm_call',
      name: 'gpt-4o-mini',
      status: 'ok',
      llmCallId: 'call-1',
      startedAt: at(20),
      durationMs: 600,
    }),
    call({ callId: 'call-1', spanId: 'llm-1', startedAt: at(20), latencyMs: 600 }),
    trace({
      spanId: 'tool-1',
      parentSpanId: 'turn-1',
      eventType: 'tool_call',
      name: 'lookup_invoices',
      startedAt: at(700),
      durationMs: 300,
      attributes: { parameters: { customerId: 'cus_1, "vip"' } },
    }),
    trace({
      spanId: 'result-1',
      parentSpanId: 'tool-1',
      eventType: 'tool_result',
      name: 'lookup_invoices',
      status: 'ok',
      startedAt: at(1000),
      durationMs: 0,
    }),
    trace({
      spanId: 'guard-1',
      parentSpanId: 'turn-1',
      eventType: 'guardrail_eval',
      name: 'pii',
      status: 'ok',
      startedAt: at(1100),
      durationMs: 20,
    }),
    trace({
      spanId: 'decision-1',
      parentSpanId: 'turn-1',
      eventType: 'decision',
      name: 'refunds',
      decisionKind: 'handoff',
      status: 'ok',
      startedAt: at(1200),
      durationMs: 5,
    }),
    trace({
      spanId: 'handoff-1',
      parentSpanId: 'turn-1',
      eventType: 'handoff',
      name: 'refunds',
      startedAt: at(1210),
    }),
    trace({
      spanId: 'state-1',
      parentSpanId: 'turn-1',
      eventType: 'state_change',
      name: 'awaiting_confirmation',
      startedAt: at(1300),
    }),
    trace({ spanId: 'turn-2', eventType: 'response', name: 'refunds', status: 'error', startedAt: at(5000) }),
    trace({
      spanId: 'llm-2',
      parentSpanId: 'turn-2',
      eventType: 'llm_call',
      name: 'gpt-4o-mini',
      status: 'error',
      llmCallId: 'call-2',
      startedAt: at(5010),
      durationMs: 4000,
    }),
    call({
      callId: 'call-2',
      spanId: 'llm-2',
      startedAt: at(5010),
      latencyMs: 4000,
      timeToFirstTokenMs: 4000,
      streamingUsed: false,
      status: 'failed',
      statusCode: 500,
      usage: {
        inputTokens: 9000,
        cachedTokens: 0,
        completionTokens: 0,
        reasoningTokens: 0,
        outputTokens: 0,
        totalTokens: 9000,
      },
      cost: 0.0012,
    }),
    trace({
      spanId: 'tool-2',
      parentSpanId: 'turn-2',
      eventType: 'tool_call',
      name: 'issue_refund',
      status: 'error',
      startedAt: at(9100),
      durationMs: 100,
      attributes: { code: 'REFUND_LIMIT' },
    }),
    trace({
      spanId: 'guard-2',
      parentSpanId: 'turn-2',
      eventType: 'guardrail_eval',
      name: 'toxicity',
      status: 'blocked',
      startedAt: at(9300),
      durationMs: 30,
    }),
    trace({
      spanId: 'error-2',
      parentSpanId: 'turn-2',
      eventType: 'error',
      name: 'provider_error',
      startedAt: at(9400),
      durationMs: 0,
      attributes: { code: 'UPSTREAM_500', detail: 'line 1\nline 2' },
    }),
  ];
  return { stream: `session-${sessionId}`, events };
}
