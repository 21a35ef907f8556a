import { type GenerationNode, isError, type SessionMetrics } from './sessionMetrics.js';
import { subtree, type TraceNode, traceTree } from './traceTree.js';
import { isVoiceCallEvent } from './voiceCallMetrics.js';

/** The thresholds of the analysis rules (docs/traces.md, "Analysis rules"). */
export const ANALYSIS_RULES = {
  /** A span at least this long is slow, whatever its type. */
  slowSpanMs: 2_000,
  /** …or at least this many times the median of its type in the session, */
  relativeFactor: 3,
  /** …when the type has at least this many timed spans, */
  relativeMinSpans: 5,
  /** …and the span takes at least this long. */
  relativeMinMs: 500,
  /** The slowest spans reported, at most. */
  maxSlowSpans: 20,
  /** Span ids listed per error pattern or anomaly, at most. */
  maxSpanIds: 5,
  /** The same decision (kind and name) this often within one turn is an anomaly. */
  repeatedDecisionMin: 3,
  /** An LLM call with at least this many input tokens: suggest a smaller prompt. */
  largePromptTokens: 8_000,
  /** Caching suggestion: at least this many calls, this many input tokens in all, … */
  cachingMinCalls: 3,
  cachingMinInputTokens: 10_000,
  /** …and less than this share of them cached. */
  cachingMaxCachedShare: 0.2,
  /** A call at least this slow that did not stream: suggest streaming. */
  streamingLatencyMs: 3_000,
  /** Tool suggestion: at least this many tool calls with a success rate below the minimum. */
  toolFailureMinCalls: 3,
  toolSuccessMin: 0.8,
  /** Guardrail suggestion: at least this many evaluations with a block rate above the maximum. */
  guardrailMinEvaluations: 2,
  guardrailBlockMax: 0.5,
} as const;

export interface SlowSpan {
  eventId: string;
  spanId: string;
  eventType: string;
  name: string | null;
  durationMs: number;
  /** `absolute`: over slowSpanMs; `relative`: over relativeFactor × the type's median. */
  rule: 'absolute' | 'relative';
  thresholdMs: number;
}

export interface ErrorPattern {
  eventType: string;
  name: string | null;
  /** `attributes.code`, `attributes.errorCode` or `attributes.error.code`; `status_<code>` for a failed LLM call. */
  code: string | null;
  count: number;
  firstAt: string;
  lastAt: string;
  spanIds: string[];
}

export type DecisionAnomalyKind =
  | 'repeated_decision'
  | 'handoff_loop'
  | 'failed_decision'
  | 'decision_without_kind';

export interface DecisionAnomaly {
  kind: DecisionAnomalyKind;
  message: string;
  count: number;
  spanIds: string[];
  /** Rule-specific context: the decision kind and name, the turn, or the handoff path. */
  details: Record<string, unknown>;
}

export type SuggestionCode =
  | 'investigate_slow_spans'
  | 'reduce_prompt_size'
  | 'enable_prompt_caching'
  | 'enable_streaming'
  | 'review_tool_failures'
  | 'review_guardrails'
  | 'review_errors';

export interface Suggestion {
  code: SuggestionCode;
  message: string;
  evidence: Record<string, unknown>;
}

export interface TraceAnalysis {
  slowSpans: SlowSpan[];
  errorPatterns: ErrorPattern[];
  decisionAnomalies: DecisionAnomaly[];
  suggestions: Suggestion[];
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const stringAt = (value: unknown, ...path: string[]): string | null => {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at)) return null;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'string' && at.length > 0 ? at : null;
};

export function errorCodeOf(e: TraceNode): string | null {
  return (
    stringAt(e.attributes, 'code') ??
    stringAt(e.attributes, 'errorCode') ??
    stringAt(e.attributes, 'error', 'code')
  );
}

function slowSpans(all: readonly TraceNode[]): SlowSpan[] {
  const R = ANALYSIS_RULES;
  // A voice call's duration is how long the caller talked, not work of the agent: never a slow span.
  const events = all.filter((e) => !isVoiceCallEvent(e));
  const durationsByType = new Map<string, number[]>();
  for (const e of events) {
    if (e.duration_ms === null) continue;
    const list = durationsByType.get(e.event_type) ?? [];
    list.push(e.duration_ms);
    durationsByType.set(e.event_type, list);
  }
  const relativeThreshold = new Map<string, number>();
  for (const [type, durations] of durationsByType) {
    if (durations.length >= R.relativeMinSpans) {
      relativeThreshold.set(type, Math.max(R.relativeMinMs, R.relativeFactor * median(durations)));
    }
  }
  const slow: SlowSpan[] = [];
  for (const e of events) {
    if (e.duration_ms === null) continue;
    const base = {
      eventId: e.event_id,
      spanId: e.span_id,
      eventType: e.event_type,
      name: e.name,
      durationMs: e.duration_ms,
    };
    const relative = relativeThreshold.get(e.event_type);
    if (e.duration_ms >= R.slowSpanMs) slow.push({ ...base, rule: 'absolute', thresholdMs: R.slowSpanMs });
    else if (relative !== undefined && e.duration_ms >= relative)
      slow.push({ ...base, rule: 'relative', thresholdMs: relative });
  }
  return slow
    .sort((a, b) => b.durationMs - a.durationMs || (a.eventId < b.eventId ? -1 : 1))
    .slice(0, R.maxSlowSpans);
}

function errorPatterns(events: readonly TraceNode[], generations: readonly GenerationNode[]): ErrorPattern[] {
  const patterns = new Map<string, ErrorPattern>();
  const add = (
    eventType: string,
    name: string | null,
    code: string | null,
    at: Date,
    spanId: string | null,
  ) => {
    const key = JSON.stringify([eventType, name, code]);
    const iso = at.toISOString();
    const p = patterns.get(key);
    if (p === undefined) {
      patterns.set(key, {
        eventType,
        name,
        code,
        count: 1,
        firstAt: iso,
        lastAt: iso,
        spanIds: spanId ? [spanId] : [],
      });
      return;
    }
    p.count += 1;
    if (iso < p.firstAt) p.firstAt = iso;
    if (iso > p.lastAt) p.lastAt = iso;
    if (spanId !== null && p.spanIds.length < ANALYSIS_RULES.maxSpanIds) p.spanIds.push(spanId);
  };
  const failedCalls = new Map(generations.filter((g) => g.status === 'failed').map((g) => [g.call_id, g]));
  for (const e of events) {
    // A failed call's llm_call event is counted once, as the failed call below.
    if (e.event_type === 'llm_call' && e.llm_call_id !== null && failedCalls.has(e.llm_call_id)) continue;
    if (isError(e)) add(e.event_type, e.name, errorCodeOf(e), e.started_at, e.span_id);
  }
  for (const g of failedCalls.values())
    add('llm_call', g.model, `status_${g.status_code}`, g.started_at, g.span_id);
  return [...patterns.values()].sort(
    (a, b) => b.count - a.count || (a.firstAt < b.firstAt ? -1 : a.firstAt > b.firstAt ? 1 : 0),
  );
}

const isHandoff = (e: TraceNode): boolean =>
  e.event_type === 'handoff' || (e.event_type === 'decision' && e.decision_kind === 'handoff');

function decisionAnomalies(events: readonly TraceNode[]): DecisionAnomaly[] {
  const R = ANALYSIS_RULES;
  const out: DecisionAnomaly[] = [];
  const tree = traceTree(events);
  const claimed = new Set<TraceNode>();
  for (const root of tree.roots) {
    const groups = new Map<string, TraceNode[]>();
    for (const e of subtree(tree, root, claimed)) {
      if (e.event_type !== 'decision') continue;
      const key = JSON.stringify([e.decision_kind, e.name]);
      groups.set(key, [...(groups.get(key) ?? []), e]);
    }
    for (const decisions of groups.values()) {
      if (decisions.length < R.repeatedDecisionMin) continue;
      const first = decisions[0]!;
      out.push({
        kind: 'repeated_decision',
        message: `The same decision was taken ${decisions.length} times in one turn`,
        count: decisions.length,
        spanIds: decisions.slice(0, R.maxSpanIds).map((d) => d.span_id),
        details: { decisionKind: first.decision_kind, name: first.name, turnSpanId: root.span_id },
      });
    }
  }
  // A handoff back to an agent already handed to, with another agent in between (A → B → A).
  const path: TraceNode[] = events.filter((e) => isHandoff(e) && e.name !== null);
  const seen = new Map<string, number>();
  const looped: TraceNode[] = [];
  path.forEach((e, i) => {
    const before = seen.get(e.name!);
    if (before !== undefined && before < i - 1) looped.push(e);
    seen.set(e.name!, i);
  });
  if (looped.length > 0) {
    out.push({
      kind: 'handoff_loop',
      message: 'The conversation was handed back to an agent it had already been handed to',
      count: looped.length,
      spanIds: looped.slice(0, R.maxSpanIds).map((e) => e.span_id),
      details: { path: path.map((e) => e.name) },
    });
  }
  const decisions = events.filter((e) => e.event_type === 'decision');
  const failed = decisions.filter((e) => e.status === 'error' || e.status === 'blocked');
  if (failed.length > 0) {
    out.push({
      kind: 'failed_decision',
      message: 'Decisions ended with status error or blocked',
      count: failed.length,
      spanIds: failed.slice(0, R.maxSpanIds).map((e) => e.span_id),
      details: {},
    });
  }
  const kindless = decisions.filter((e) => e.decision_kind === null);
  if (kindless.length > 0) {
    out.push({
      kind: 'decision_without_kind',
      message: 'Decisions were recorded without a decisionKind (the decisionKind filter cannot find them)',
      count: kindless.length,
      spanIds: kindless.slice(0, R.maxSpanIds).map((e) => e.span_id),
      details: {},
    });
  }
  return out;
}

function suggestions(metrics: SessionMetrics, slow: readonly SlowSpan[]): Suggestion[] {
  const R = ANALYSIS_RULES;
  const out: Suggestion[] = [];
  if (slow.length > 0) {
    out.push({
      code: 'investigate_slow_spans',
      message: 'Some spans are slow; look at the slowest first',
      evidence: {
        slowSpanCount: slow.length,
        slowestSpanId: slow[0]!.spanId,
        slowestMs: slow[0]!.durationMs,
      },
    });
  }
  const large = metrics.llmCalls.filter((c) => c.inputTokens >= R.largePromptTokens);
  if (large.length > 0) {
    out.push({
      code: 'reduce_prompt_size',
      message: `LLM calls sent at least ${R.largePromptTokens} input tokens; trim history or context`,
      evidence: {
        callIds: large.slice(0, R.maxSpanIds).map((c) => c.callId),
        maxInputTokens: Math.max(...large.map((c) => c.inputTokens)),
      },
    });
  }
  const { inputTokens, cachedTokens } = metrics.tokenUsage;
  if (
    metrics.llmCallCount >= R.cachingMinCalls &&
    inputTokens >= R.cachingMinInputTokens &&
    cachedTokens / inputTokens < R.cachingMaxCachedShare
  ) {
    out.push({
      code: 'enable_prompt_caching',
      message: 'Little of the prompt is served from cache; keep the prompt prefix stable across calls',
      evidence: { inputTokens, cachedTokens, cachedShare: cachedTokens / inputTokens },
    });
  }
  const unstreamed = metrics.llmCalls.filter((c) => !c.streamingUsed && c.latencyMs >= R.streamingLatencyMs);
  if (unstreamed.length > 0) {
    out.push({
      code: 'enable_streaming',
      message: 'Slow LLM calls were not streamed; streaming shortens the time to the first token',
      evidence: { callIds: unstreamed.slice(0, R.maxSpanIds).map((c) => c.callId) },
    });
  }
  if (
    metrics.toolCallCount >= R.toolFailureMinCalls &&
    metrics.toolSuccessRate !== null &&
    metrics.toolSuccessRate < R.toolSuccessMin
  ) {
    out.push({
      code: 'review_tool_failures',
      message: 'Many tool calls failed',
      evidence: { toolCallCount: metrics.toolCallCount, toolSuccessRate: metrics.toolSuccessRate },
    });
  }
  if (
    metrics.guardrailEvaluationCount >= R.guardrailMinEvaluations &&
    metrics.guardrailBlockRate !== null &&
    metrics.guardrailBlockRate > R.guardrailBlockMax
  ) {
    out.push({
      code: 'review_guardrails',
      message: 'Guardrails blocked most evaluations; check for over-blocking',
      evidence: {
        guardrailEvaluationCount: metrics.guardrailEvaluationCount,
        guardrailBlockRate: metrics.guardrailBlockRate,
      },
    });
  }
  if (metrics.errorCount > 0) {
    out.push({
      code: 'review_errors',
      message: 'The session recorded errors; see errorPatterns',
      evidence: { errorCount: metrics.errorCount },
    });
  }
  return out;
}

/** Diagnostics of a session (spec 001 §4.8 /analysis) by the rules above. Pure. */
export function traceAnalysis(
  events: readonly TraceNode[],
  generations: readonly GenerationNode[],
  metrics: SessionMetrics,
): TraceAnalysis {
  const slow = slowSpans(events);
  return {
    slowSpans: slow,
    errorPatterns: errorPatterns(events, generations),
    decisionAnomalies: decisionAnomalies(events),
    suggestions: suggestions(metrics, slow),
  };
}
