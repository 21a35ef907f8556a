import { describe, expect, it } from 'vitest';
import { agentDetails, spanSummary } from './agentSpans.js';
import type { TraceEvent } from './types.js';

const event = (fields: Partial<TraceEvent>): TraceEvent => ({
  eventId: 'e',
  sessionId: 's',
  traceId: 't',
  spanId: 'x',
  parentSpanId: null,
  eventType: 'tool_call',
  name: null,
  status: 'ok',
  decisionKind: null,
  llmCallId: null,
  startedAt: '2025-06-10T10:00:00.000Z',
  endedAt: null,
  durationMs: 5,
  attributes: {},
  childCount: 0,
  llmCall: null,
  ...fields,
});

describe('agent spans in the trace', () => {
  it('says how a tool call went', () => {
    expect(
      spanSummary(
        event({ name: 'order_status', attributes: { kind: 'http', statusCode: 404 }, status: 'error' }),
      ),
    ).toBe('http tool · failed · HTTP 404');
    expect(
      spanSummary(
        event({
          eventType: 'state_change',
          name: 'voice_call_status',
          attributes: { to: 'ringing', callId: 'CA1' },
        }),
      ),
    ).toBe('ringing · call CA1');
    expect(
      spanSummary(event({ eventType: 'state_change', name: 'agent_turn', attributes: { to: 'x' } })),
    ).toBeNull();
    expect(spanSummary(event({ attributes: { kind: 'http', suspended: true } }))).toBe(
      'suspended: waiting for its callback',
    );
    expect(
      spanSummary(event({ eventType: 'tool_result', status: 'error', attributes: { code: 'timeout' } })),
    ).toBe('error: timeout');
    expect(
      agentDetails(
        event({ name: 'order_status', attributes: { kind: 'http', attempts: 2, arguments: '{"id":1}' } }),
      ),
    ).toEqual([
      ['Tool', 'order_status'],
      ['Kind', 'http'],
      ['Outcome', 'succeeded'],
      ['Attempts', '2'],
      ['Arguments', '{"id":1}'],
    ]);
  });

  it('says who handed off to whom, and why a handoff failed', () => {
    expect(
      spanSummary(
        event({ eventType: 'handoff', attributes: { from: 'triage', to: 'billing', target: 'local' } }),
      ),
    ).toBe('triage → billing');
    expect(
      spanSummary(
        event({
          eventType: 'handoff',
          status: 'error',
          attributes: { from: 'a', to: 'p', target: 'remote', code: 'agent_unavailable' },
        }),
      ),
    ).toBe('a → p (remote, A2A) failed: agent_unavailable');
    expect(
      spanSummary(
        event({ eventType: 'decision', decisionKind: 'handoff', attributes: { reason: 'invoice' } }),
      ),
    ).toBe('handoff: invoice');
  });

  it('says what a guardrail found and whether it blocked', () => {
    expect(
      spanSummary(
        event({
          eventType: 'guardrail_eval',
          name: 'pii',
          status: 'blocked',
          attributes: { stage: 'input', action: 'redact', findings: { email: 1, card: 2 } },
        }),
      ),
    ).toBe('input · blocked · found email 1, card 2 (redact)');
    expect(
      spanSummary(
        event({ eventType: 'guardrail_eval', attributes: { stage: 'output', limit: 500, length: 120 } }),
      ),
    ).toBe('output · passed · 120 of 500 characters');
    expect(
      agentDetails(
        event({
          eventType: 'guardrail_eval',
          name: 'model_check',
          status: 'blocked',
          attributes: { stage: 'input', verdict: 'block', model: 'claude-3-5-haiku' },
        }),
      ),
    ).toEqual([
      ['Guardrail', 'model_check'],
      ['Stage', 'input'],
      ['Result', 'blocked'],
      ['Verdict', 'block'],
      ['Model', 'claude-3-5-haiku'],
    ]);
    expect(spanSummary(event({ eventType: 'llm_call' }))).toBeNull();
  });
});
