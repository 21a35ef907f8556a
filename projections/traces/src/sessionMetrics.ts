import { TRACE_EVENT_TYPES, type TraceEventType } from '@parley/events';
import { type LlmCallMeasureRow, tokenCountsOf } from '@parley/projection-llm-ledger/llmCallColumns';
import type { TokenCounts } from './traceRecord.js';
import { endOf, subtree, type TraceNode, type TraceTree, traceTree } from './traceTree.js';
import { isVoiceCallEvent, type VoiceCallSummary, voiceCallSummaries } from './voiceCallMetrics.js';

/** What the metrics need of a recorded LLM call (a `trace_generations` row, narrowed). */
export interface GenerationNode extends LlmCallMeasureRow {
  call_id: string;
  span_id: string | null;
  model: string | null;
  provider: string | null;
  status: string;
  status_code: number;
  started_at: Date;
}

export interface TurnMetrics {
  /** The turn's root span. */
  spanId: string;
  traceId: string;
  eventType: string;
  name: string | null;
  startedAt: string;
  /** The root's durationMs; when not recorded, the latest end in the turn minus the root's start. */
  latencyMs: number;
  /** Events in the turn, the root included. */
  eventCount: number;
  llmCallCount: number;
  toolCallCount: number;
  errorCount: number;
}

export interface LlmCallMetrics extends TokenCounts {
  callId: string;
  spanId: string | null;
  model: string | null;
  provider: string | null;
  status: string;
  latencyMs: number;
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  cost: number;
  startedAt: string;
}

/** Aggregated execution metrics of a session (spec 001 §4.8 /metrics; rules in docs/traces.md). */
export interface SessionMetrics {
  eventCount: number;
  eventCountByType: Record<TraceEventType, number>;
  /** Sum of the turns' latencies. */
  totalLatencyMs: number;
  /** From the first event's start to the latest end of any event; 0 without events. */
  wallClockMs: number;
  turnCount: number;
  turns: TurnMetrics[];
  llmCallCount: number;
  /** Sums over the session's recorded LLM calls. */
  tokenUsage: TokenCounts;
  totalCost: number;
  /** Token usage per LLM call, in start order. */
  llmCalls: LlmCallMetrics[];
  toolCallCount: number;
  toolSuccessCount: number;
  /** toolSuccessCount / toolCallCount; null without tool calls. */
  toolSuccessRate: number | null;
  guardrailEvaluationCount: number;
  guardrailBlockCount: number;
  /** guardrailBlockCount / guardrailEvaluationCount; null without evaluations. */
  guardrailBlockRate: number | null;
  /** `error` events plus events of other types with status `error`. */
  errorCount: number;
  /** The session's voice calls: lifecycle statuses, duration and voice metrics (docs/traces.md "Voice calls"). */
  voiceCalls: VoiceCallSummary[];
}

export const isError = (e: TraceNode): boolean => e.event_type === 'error' || e.status === 'error';

/**
 * The outcome of each tool call: its own status when recorded; otherwise the status of its result,
 * which is the first `tool_result` child of the call's span, or else the first later `tool_result`
 * sibling (same parent) with the same name (or no name) not taken by an earlier call; a result
 * without status, or no result, counts as ok (no failure was recorded).
 */
export function toolOutcomes(tree: TraceTree): Map<TraceNode, boolean> {
  const outcomes = new Map<TraceNode, boolean>();
  const taken = new Set<TraceNode>();
  const order = new Map(tree.events.map((e, i) => [e, i]));
  const siblingsOf = (e: TraceNode): readonly TraceNode[] =>
    e.parent_span_id === null || !tree.children.has(e.parent_span_id)
      ? tree.roots
      : (tree.children.get(e.parent_span_id) ?? []);
  for (const call of tree.events) {
    if (call.event_type !== 'tool_call') continue;
    if (call.status !== null) {
      outcomes.set(call, call.status === 'ok');
      continue;
    }
    const child = (tree.children.get(call.span_id) ?? []).find(
      (c) => c.event_type === 'tool_result' && !taken.has(c),
    );
    const at = order.get(call) ?? 0;
    const result =
      child ??
      siblingsOf(call).find(
        (s) =>
          s.event_type === 'tool_result' &&
          !taken.has(s) &&
          (order.get(s) ?? 0) > at &&
          (s.name === null || call.name === null || s.name === call.name),
      );
    if (result !== undefined) taken.add(result);
    outcomes.set(call, result?.status === undefined || result.status === null || result.status === 'ok');
  }
  return outcomes;
}

const zeroCounts = (): TokenCounts => ({
  inputTokens: 0,
  cachedTokens: 0,
  completionTokens: 0,
  reasoningTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
});

/** Metrics of a session from its events (in session order) and its recorded calls. Pure. */
export function sessionMetrics(
  events: readonly TraceNode[],
  generations: readonly GenerationNode[],
): SessionMetrics {
  // A call's status and metrics events are facts about the call, not turns (they stay in the counts).
  const tree = traceTree(events.filter((e) => !isVoiceCallEvent(e)));
  const byType = Object.fromEntries(TRACE_EVENT_TYPES.map((t) => [t, 0])) as Record<TraceEventType, number>;
  for (const e of events) if (e.event_type in byType) byType[e.event_type as TraceEventType] += 1;

  const claimed = new Set<TraceNode>();
  const turns = tree.roots.map((root): TurnMetrics => {
    const turn = subtree(tree, root, claimed);
    const start = root.started_at.getTime();
    const latest = turn.reduce((max, e) => Math.max(max, endOf(e)), start);
    return {
      spanId: root.span_id,
      traceId: root.trace_id,
      eventType: root.event_type,
      name: root.name,
      startedAt: root.started_at.toISOString(),
      latencyMs: root.duration_ms ?? Math.max(0, latest - start),
      eventCount: turn.length,
      llmCallCount: turn.filter((e) => e.event_type === 'llm_call').length,
      toolCallCount: turn.filter((e) => e.event_type === 'tool_call').length,
      errorCount: turn.filter(isError).length,
    };
  });

  const calls = [...generations].sort(
    (a, b) => a.started_at.getTime() - b.started_at.getTime() || (a.call_id < b.call_id ? -1 : 1),
  );
  const tokenUsage = zeroCounts();
  let totalCost = 0;
  const llmCalls = calls.map((g): LlmCallMetrics => {
    const counts = tokenCountsOf(g);
    for (const key of Object.keys(tokenUsage) as (keyof TokenCounts)[]) tokenUsage[key] += counts[key];
    totalCost += g.cost;
    return {
      callId: g.call_id,
      spanId: g.span_id,
      model: g.model,
      provider: g.provider,
      status: g.status,
      ...counts,
      latencyMs: g.latency_ms,
      timeToFirstTokenMs: g.time_to_first_token_ms,
      streamingUsed: g.streaming_used,
      cost: g.cost,
      startedAt: g.started_at.toISOString(),
    };
  });

  const outcomes = toolOutcomes(tree);
  const toolSuccessCount = [...outcomes.values()].filter(Boolean).length;
  const guardrails = events.filter((e) => e.event_type === 'guardrail_eval');
  const blocked = guardrails.filter((e) => e.status === 'blocked').length;
  const first = events.reduce((min, e) => Math.min(min, e.started_at.getTime()), Number.POSITIVE_INFINITY);
  const last = events.reduce((max, e) => Math.max(max, endOf(e)), Number.NEGATIVE_INFINITY);

  return {
    eventCount: events.length,
    eventCountByType: byType,
    totalLatencyMs: turns.reduce((sum, t) => sum + t.latencyMs, 0),
    wallClockMs: events.length === 0 ? 0 : last - first,
    turnCount: turns.length,
    turns,
    llmCallCount: llmCalls.length,
    tokenUsage,
    totalCost,
    llmCalls,
    toolCallCount: outcomes.size,
    toolSuccessCount,
    toolSuccessRate: outcomes.size === 0 ? null : toolSuccessCount / outcomes.size,
    guardrailEvaluationCount: guardrails.length,
    guardrailBlockCount: blocked,
    guardrailBlockRate: guardrails.length === 0 ? null : blocked / guardrails.length,
    errorCount: events.filter(isError).length,
    voiceCalls: voiceCallSummaries(events),
  };
}
