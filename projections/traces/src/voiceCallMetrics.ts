import type { TraceNode } from './traceTree.js';

/** Trace event names of voice calls: each lifecycle status, and the pipeline's metrics at the call's end. */
export const VOICE_CALL_STATUS_NAME = 'voice_call_status';
export const VOICE_CALL_METRICS_NAME = 'voice_call';

/** A call's rows are facts about the call, not turns of the conversation. */
export const isVoiceCallEvent = (e: TraceNode): boolean =>
  e.event_type === 'state_change' &&
  (e.name === VOICE_CALL_STATUS_NAME || e.name === VOICE_CALL_METRICS_NAME);

/** One telephony or gateway call of a session (spec 001 §6 lifecycle, "Voice configuration" metrics). */
export interface VoiceCallSummary {
  callId: string;
  /** The latest status reported (by the time the provider gives), null when only metrics were recorded. */
  status: string | null;
  /** Every status in the order it happened. */
  statuses: Array<{ status: string; at: string }>;
  /** The provider's call duration (the final status's), else the pipeline's measured one; null when neither. */
  durationMs: number | null;
  /** The pipeline's voice metrics of the call (null without a `voice_call` event). */
  firstResponseTimeMs: number | null;
  meanResponseTimeMs: number | null;
  turnCount: number | null;
  sttConfidence: number | null;
  bargeInRate: number | null;
  silenceDurationMs: number | null;
}

const attributesOf = (e: TraceNode): Record<string, unknown> =>
  typeof e.attributes === 'object' && e.attributes !== null ? (e.attributes as Record<string, unknown>) : {};
const numberOr = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The calls of a session from its events (in session order), in the order each call first appears. Pure. */
export function voiceCallSummaries(events: readonly TraceNode[]): VoiceCallSummary[] {
  const calls = new Map<string, VoiceCallSummary>();
  const callOf = (callId: string): VoiceCallSummary => {
    let call = calls.get(callId);
    if (call === undefined) {
      call = {
        callId,
        status: null,
        statuses: [],
        durationMs: null,
        firstResponseTimeMs: null,
        meanResponseTimeMs: null,
        turnCount: null,
        sttConfidence: null,
        bargeInRate: null,
        silenceDurationMs: null,
      };
      calls.set(callId, call);
    }
    return call;
  };
  for (const e of events) {
    if (!isVoiceCallEvent(e)) continue;
    const a = attributesOf(e);
    if (e.name === VOICE_CALL_STATUS_NAME) {
      const callId = text(a.callId);
      const status = text(a.to);
      if (callId === null || status === null) continue;
      const call = callOf(callId);
      call.statuses.push({ status, at: e.started_at.toISOString() });
      call.status = status;
      if (e.duration_ms !== null) call.durationMs = e.duration_ms;
      continue;
    }
    const callId = text(a.callSid);
    if (callId === null) continue;
    const call = callOf(callId);
    call.durationMs ??= numberOr(a.callDurationMs) ?? e.duration_ms;
    call.firstResponseTimeMs = numberOr(a.firstResponseTimeMs);
    call.meanResponseTimeMs = numberOr(a.meanResponseTimeMs);
    call.turnCount = numberOr(a.turnCount);
    call.sttConfidence = numberOr(a.sttConfidence);
    call.bargeInRate = numberOr(a.bargeInRate);
    call.silenceDurationMs = numberOr(a.silenceDurationMs);
  }
  return [...calls.values()];
}
