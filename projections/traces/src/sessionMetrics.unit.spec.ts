import { TRACE_EVENT_TYPES } from '@parley/events';
import { recordedFrom } from '@parley/events/testing';
import { memoryRows, projectInMemory } from '@parley/projection-runner/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GenerationNode, sessionMetrics } from './sessionMetrics.js';
import { exampleSession } from './testing/sessionTrace.js';
import { traceAnalysis } from './traceAnalysis.js';
import { type TraceEventRow, type TraceGenerationRow, tracesProjection } from './tracesProjection.js';
import type { TraceNode } from './traceTree.js';

function example() {
  const { events } = exampleSession('p', 's');
  const state = projectInMemory(
    tracesProjection,
    events.map((e, i) =>
      recordedFrom(e, { revision: BigInt(i), position: { commit: BigInt(i + 1), prepare: 0n } }),
    ),
  );
  const traces = (memoryRows(state, 'trace_events') as TraceEventRow[]).sort(
    (a, b) => a.started_at.getTime() - b.started_at.getTime() || a.seq - b.seq,
  );
  return { traces, generations: memoryRows(state, 'trace_generations') as TraceGenerationRow[] };
}

describe('sessionMetrics', () => {
  it('aggregates the example session by the documented rules', () => {
    const { traces, generations } = example();
    const m = sessionMetrics(traces, generations);
    expect(m.eventCount).toBe(13);
    expect(m.eventCountByType).toEqual({
      llm_call: 2,
      tool_call: 2,
      tool_result: 1,
      decision: 1,
      handoff: 1,
      guardrail_eval: 2,
      state_change: 1,
      error: 1,
      response: 2,
    });
    expect(m.turns).toEqual([
      {
        spanId: 'turn-1',
        traceId: 'trace-s',
        eventType: 'response',
        name: 'billing-assistant',
        startedAt: '2026-11-21T09:00:00.010Z',
        latencyMs: 1500,
        eventCount: 8,
        llmCallCount: 1,
        toolCallCount: 1,
        errorCount: 0,
      },
      {
        spanId: 'turn-2',
        traceId: 'trace-s',
        eventType: 'response',
        name: 'refunds',
        startedAt: '2026-11-21T09:00:05.000Z',
        // No duration recorded: the latest end in the turn (error-2 at 9.400 s) minus its start.
        latencyMs: 4400,
        eventCount: 5,
        llmCallCount: 1,
        toolCallCount: 1,
        errorCount: 4,
      },
    ]);
    expect(m.turnCount).toBe(2);
    expect(m.totalLatencyMs).toBe(5900);
    expect(m.wallClockMs).toBe(9390);
    expect(m.llmCallCount).toBe(2);
    expect(m.tokenUsage).toEqual({
      inputTokens: 10843,
      cachedTokens: 1024,
      completionTokens: 61,
      reasoningTokens: 0,
      outputTokens: 61,
      totalTokens: 10904,
    });
    expect(m.totalCost).toBeCloseTo(0.00151305, 10);
    expect(m.llmCalls.map((c) => [c.callId, c.spanId, c.status, c.inputTokens, c.latencyMs])).toEqual([
      ['call-1', 'llm-1', 'success', 1843, 600],
      ['call-2', 'llm-2', 'failed', 9000, 4000],
    ]);
    expect([m.toolCallCount, m.toolSuccessCount, m.toolSuccessRate]).toEqual([2, 1, 0.5]);
    expect([m.guardrailEvaluationCount, m.guardrailBlockCount, m.guardrailBlockRate]).toEqual([2, 1, 0.5]);
    expect(m.errorCount).toBe(4);
  });

  it('has null rates and zero latency without events', () => {
    const m = sessionMetrics([], []);
    expect(m).toMatchObject({
      eventCount: 0,
      totalLatencyMs: 0,
      wallClockMs: 0,
      toolSuccessRate: null,
      guardrailBlockRate: null,
      turns: [],
    });
  });
});

describe('traceAnalysis', () => {
  it('finds the slow span, the error patterns and the suggestions of the example session', () => {
    const { traces, generations } = example();
    const a = traceAnalysis(traces, generations, sessionMetrics(traces, generations));
    expect(a.slowSpans).toEqual([
      {
        eventId: traces.find((t) => t.span_id === 'llm-2')!.event_id,
        spanId: 'llm-2',
        eventType: 'llm_call',
        name: 'gpt-4o-mini',
        durationMs: 4000,
        rule: 'absolute',
        thresholdMs: 2000,
      },
    ]);
    expect(a.errorPatterns.map((p) => [p.eventType, p.name, p.code, p.count, p.spanIds])).toEqual([
      ['response', 'refunds', null, 1, ['turn-2']],
      ['llm_call', 'gpt-4o-mini-2024-07-18', 'status_500', 1, ['llm-2']],
      ['tool_call', 'issue_refund', 'REFUND_LIMIT', 1, ['tool-2']],
      ['error', 'provider_error', 'UPSTREAM_500', 1, ['error-2']],
    ]);
    expect(a.decisionAnomalies).toEqual([]);
    expect(a.suggestions.map((s) => s.code)).toEqual([
      'investigate_slow_spans',
      'reduce_prompt_size',
      'enable_streaming',
      'review_errors',
    ]);
  });

  it('reports repeated decisions, handoff loops, failed and kindless decisions', () => {
    const base = { trace_id: 't', llm_call_id: null, duration_ms: null, ended_at: null, attributes: {} };
    let n = 0;
    const node = (over: Partial<TraceNode>): TraceNode => {
      n += 1;
      return {
        ...base,
        event_id: `e${n}`,
        span_id: `s${n}`,
        parent_span_id: 'root',
        event_type: 'decision',
        name: null,
        status: null,
        decision_kind: null,
        started_at: new Date(1000 + n),
        ...over,
      };
    };
    const events = [
      node({ span_id: 'root', parent_span_id: null, event_type: 'response' }),
      node({ decision_kind: 'route', name: 'faq' }),
      node({ decision_kind: 'route', name: 'faq' }),
      node({ decision_kind: 'route', name: 'faq', status: 'error' }),
      node({ event_type: 'handoff', name: 'billing' }),
      node({ event_type: 'handoff', name: 'sales' }),
      node({ decision_kind: 'handoff', name: 'billing' }),
    ];
    const a = traceAnalysis(events, [], sessionMetrics(events, []));
    expect(a.decisionAnomalies.map((d) => [d.kind, d.count])).toEqual([
      ['repeated_decision', 3],
      ['handoff_loop', 1],
      ['failed_decision', 1],
    ]);
    expect(a.decisionAnomalies[1]?.details).toEqual({ path: ['billing', 'sales', 'billing'] });
  });
});

const span = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
const nodeArb: fc.Arbitrary<TraceNode> = fc
  .record({
    span_id: span,
    parent_span_id: fc.option(span, { nil: null }),
    event_type: fc.constantFrom(...TRACE_EVENT_TYPES),
    name: fc.option(fc.constantFrom('x', 'y'), { nil: null }),
    status: fc.option(fc.constantFrom('ok', 'error', 'blocked'), { nil: null }),
    decision_kind: fc.option(fc.constantFrom('handoff', 'route'), { nil: null }),
    start: fc.nat({ max: 100_000 }),
    duration_ms: fc.option(fc.nat({ max: 10_000 }), { nil: null }),
  })
  .map(({ start, ...r }) => ({
    ...r,
    event_id: '',
    trace_id: 't',
    llm_call_id: null,
    started_at: new Date(start),
    ended_at: r.duration_ms === null ? null : new Date(start + r.duration_ms),
    attributes: {},
  }));
const generationArb: fc.Arbitrary<GenerationNode> = fc.record({
  call_id: fc.string({ minLength: 1, maxLength: 4 }),
  span_id: fc.option(span, { nil: null }),
  model: fc.option(fc.constantFrom('m1', 'm2'), { nil: null }),
  provider: fc.constant(null),
  status: fc.constantFrom('success', 'failed'),
  status_code: fc.constantFrom(200, 429, 500),
  input_tokens: fc.nat({ max: 20_000 }),
  cached_tokens: fc.nat({ max: 20_000 }),
  completion_tokens: fc.nat({ max: 2_000 }),
  reasoning_tokens: fc.nat({ max: 2_000 }),
  output_tokens: fc.nat({ max: 4_000 }),
  total_tokens: fc.nat({ max: 30_000 }),
  latency_ms: fc.nat({ max: 10_000 }),
  time_to_first_token_ms: fc.nat({ max: 10_000 }),
  streaming_used: fc.boolean(),
  cost: fc.double({ min: 0, max: 1, noNaN: true }),
  started_at: fc.nat({ max: 100_000 }).map((n) => new Date(n)),
});

it('metrics and analysis hold their invariants on any events (cycles and orphans included)', () => {
  fc.assert(
    fc.property(
      fc.array(nodeArb, { maxLength: 30 }),
      // A session's generations are keyed by call id in the read model: no two share one.
      fc.uniqueArray(generationArb, { selector: (g) => g.call_id, maxLength: 5 }),
      (raw, generations) => {
        const events = raw
          .map((e, i) => ({ ...e, event_id: `e${String(i).padStart(3, '0')}` }))
          .sort((a, b) => a.started_at.getTime() - b.started_at.getTime());
        const m = sessionMetrics(events, generations);
        expect(m.eventCount).toBe(events.length);
        expect(Object.values(m.eventCountByType).reduce((a, b) => a + b, 0)).toBe(events.length);
        expect(m.turns.reduce((sum, t) => sum + t.eventCount, 0)).toBeLessThanOrEqual(events.length);
        expect(m.toolSuccessCount).toBeLessThanOrEqual(m.toolCallCount);
        expect(m.toolCallCount).toBe(m.eventCountByType.tool_call);
        for (const rate of [m.toolSuccessRate, m.guardrailBlockRate]) {
          if (rate !== null) expect(rate >= 0 && rate <= 1).toBe(true);
        }
        expect(m.totalLatencyMs).toBe(m.turns.reduce((sum, t) => sum + t.latencyMs, 0));
        expect(m.tokenUsage.inputTokens).toBe(generations.reduce((s, g) => s + g.input_tokens, 0));
        const a = traceAnalysis(events, generations, m);
        expect(a.slowSpans.length).toBeLessThanOrEqual(20);
        for (const s of a.slowSpans) expect(s.durationMs).toBeGreaterThanOrEqual(s.thresholdMs);
        const errors = a.errorPatterns.reduce((s, p) => s + p.count, 0);
        expect(errors).toBe(m.errorCount + generations.filter((g) => g.status === 'failed').length);
      },
    ),
    { numRuns: 500 },
  );
});

it('a kindless decision is reported', () => {
  const event: TraceNode = {
    event_id: 'e',
    span_id: 's',
    parent_span_id: null,
    trace_id: 't',
    event_type: 'decision',
    name: null,
    status: null,
    decision_kind: null,
    llm_call_id: null,
    started_at: new Date(0),
    duration_ms: null,
    ended_at: null,
    attributes: {},
  };
  const a = traceAnalysis([event], [], sessionMetrics([event], []));
  expect(a.decisionAnomalies.map((d) => d.kind)).toEqual(['decision_without_kind']);
});
