import { canonicalChannel } from '@parley/analytics';
import { addDecimal } from './decimal.js';
import type { SessionScopedEvent } from './parsedSessionEvent.js';
import type { SummaryKey, SummaryRow } from './sessionSummariesProjection.js';
import { type Stamp, winsAsEnd, winsAsStart } from './winner.js';

/**
 * The fold of one session's events into its summary row. Every field is a commutative merge, so any
 * order of the same events gives the same row: sums (counts, tokens, exact cost), max (last
 * activity, written-at), and a total order on starts and ends (winner.ts). status, containmentType
 * and the durations are then recomputed from those fields alone.
 */

function emptyRow(key: SummaryKey): SummaryRow {
  return {
    ...key,
    started_event_id: null,
    channel: null,
    environment: null,
    channel_user_id: null,
    caller_number_key: null,
    trace_dimensions: null,
    is_test: null,
    created_at: null,
    last_activity_at: null,
    ended_event_id: null,
    ended_at: null,
    recorded_containment_type: null,
    end_status: null,
    idle_activity_at: null,
    idled_at: null,
    archived_at: null,
    status: ACTIVE,
    containment_type: ACTIVE_CONTAINMENT,
    duration_ms: 0,
    idle_duration_ms: 0,
    user_messages: 0,
    agent_messages: 0,
    trace_llm_call: 0,
    trace_decision: 0,
    trace_tool_call: 0,
    trace_error: 0,
    trace_total: 0,
    llm_calls: 0,
    input_tokens: 0,
    cached_tokens: 0,
    completion_tokens: 0,
    reasoning_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    estimated_cost: '0',
    voice_calls: null,
    summary_written_at: new Date(0),
  };
}

/** Status of a session no SessionEnded has been read for (and not idle). */
export const ACTIVE = 'active';
/** Status of an open session whose latest activity a SessionIdled saw. */
export const IDLE = 'idle';
/** Status once a SessionArchived has been read (terminal). */
export const ARCHIVED = 'archived';
/** containmentType while active: nothing has escalated or been abandoned yet. */
export const ACTIVE_CONTAINMENT = 'contained';

/** containmentType of a session that ended without one (the runtime could not classify it). */
export function unclassifiedContainment(status: string): string {
  if (status === 'escalated' || status === 'abandoned') return status;
  return 'contained_unresolved';
}

const later = (a: Date | null, b: Date): Date => (a === null || b.getTime() > a.getTime() ? b : a);
const earlier = (a: Date | null, b: Date): Date => (a === null || b.getTime() < a.getTime() ? b : a);
const plusMs = (iso: string, ms: number | undefined): Date => new Date(new Date(iso).getTime() + (ms ?? 0));

/** A session's calls as the summary keeps them: the latest status of each (voice_calls). */
export type VoiceCalls = Record<
  string,
  { status: string; at: string; eventId: string; durationSeconds: number | null }
>;

/**
 * One more status of a call, merged so that any order gives the same map: the status that happened
 * last (the provider's time, else when reported; then the larger event id) wins; the duration is the
 * largest reported.
 */
export function mergeVoiceCall(
  calls: VoiceCalls | null,
  d: {
    callId: string;
    status: string;
    occurredAt?: string | undefined;
    reportedAt: string;
    durationSeconds?: number | undefined;
  },
  eventId: string,
): VoiceCalls {
  const at = new Date(d.occurredAt ?? d.reportedAt).toISOString();
  const held = calls?.[d.callId];
  const durationSeconds = Math.max(held?.durationSeconds ?? -1, d.durationSeconds ?? -1);
  const wins = held === undefined || at > held.at || (at === held.at && eventId > held.eventId);
  const latest = wins
    ? { status: d.status, at, eventId }
    : { status: held.status, at: held.at, eventId: held.eventId };
  return {
    ...calls,
    [d.callId]: { ...latest, durationSeconds: durationSeconds < 0 ? null : durationSeconds },
  };
}

/** The start or end a row holds, if any. */
const stampOf = (at: Date | null, eventId: string | null): Stamp | undefined =>
  at === null || eventId === null ? undefined : { at, eventId };

function applyEvent(row: SummaryRow, event: SessionScopedEvent): void {
  const eventId = event.recorded.eventId;
  switch (event.type) {
    case 'SessionStarted': {
      const d = event.data;
      const at = new Date(d.startedAt);
      row.last_activity_at = later(row.last_activity_at, at);
      if (!winsAsStart({ at, eventId }, stampOf(row.created_at, row.started_event_id))) return;
      row.started_event_id = eventId;
      row.created_at = at;
      row.channel = canonicalChannel(d.channel);
      row.environment = d.environment;
      row.channel_user_id = d.channelUserId ?? null;
      row.caller_number_key = d.callerNumberKey ?? null;
      row.trace_dimensions = d.traceDimensions;
      row.is_test = d.isTest ?? null;
      return;
    }
    case 'SessionEnded': {
      const d = event.data;
      const at = new Date(d.endedAt);
      if (!winsAsEnd({ at, eventId }, stampOf(row.ended_at, row.ended_event_id))) return;
      row.ended_event_id = eventId;
      row.ended_at = at;
      row.end_status = d.status;
      row.recorded_containment_type = d.containmentType ?? null;
      return;
    }
    // Neither is activity: last_activity_at is untouched.
    case 'SessionIdled':
      row.idle_activity_at = later(row.idle_activity_at, new Date(event.data.lastActivityAt));
      row.idled_at = later(row.idled_at, new Date(event.data.idledAt));
      return;
    case 'SessionArchived':
      row.archived_at = earlier(row.archived_at, new Date(event.data.archivedAt));
      return;
    case 'MessageReceived':
      row.user_messages += 1;
      row.last_activity_at = later(row.last_activity_at, new Date(event.data.receivedAt));
      return;
    case 'AgentReplied':
      row.agent_messages += 1;
      row.last_activity_at = later(row.last_activity_at, new Date(event.data.repliedAt));
      return;
    case 'TraceEventRecorded': {
      const d = event.data;
      row.trace_total += 1;
      if (d.eventType === 'llm_call') row.trace_llm_call += 1;
      else if (d.eventType === 'decision') row.trace_decision += 1;
      else if (d.eventType === 'tool_call') row.trace_tool_call += 1;
      else if (d.eventType === 'error') row.trace_error += 1;
      row.last_activity_at = later(row.last_activity_at, plusMs(d.startedAt, d.durationMs));
      return;
    }
    case 'LlmCallRecorded': {
      const d = event.data;
      row.llm_calls += 1;
      row.input_tokens += d.usage.inputTokens;
      row.cached_tokens += d.usage.cachedTokens;
      row.completion_tokens += d.usage.completionTokens;
      row.reasoning_tokens += d.usage.reasoningTokens;
      row.output_tokens += d.usage.outputTokens;
      row.total_tokens += d.usage.totalTokens;
      row.estimated_cost = addDecimal(row.estimated_cost, d.cost);
      row.last_activity_at = later(row.last_activity_at, plusMs(d.startedAt, d.latencyMs));
      return;
    }
    // A call's status is not activity of the conversation (the call's turns are).
    case 'VoiceCallStatusChanged':
      row.voice_calls = mergeVoiceCall(row.voice_calls as VoiceCalls | null, event.data, eventId);
      return;
    default: {
      const unhandled: never = event;
      throw new TypeError(`unhandled event ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * The state of a session (spec 000 §3, docs/sessions.md) from the merged fields alone: archived once
 * archived; else the end's state once ended; else idle while no activity is later than the latest
 * SessionIdled saw; else active.
 */
export function sessionStatus(row: SummaryRow): string {
  if (row.archived_at !== null) return ARCHIVED;
  if (row.end_status !== null) return row.end_status;
  if (isIdle(row)) return IDLE;
  return ACTIVE;
}

function isIdle(row: SummaryRow): boolean {
  return (
    row.idle_activity_at !== null &&
    (row.last_activity_at === null || row.idle_activity_at.getTime() >= row.last_activity_at.getTime())
  );
}

/**
 * status, containmentType and the durations, from the merged fields only (so order-free too).
 * Durations (docs/sessions.md): an ended (or archived) session spans createdAt → endedAt and was
 * idle lastActivityAt → endedAt; an idle one, as stored, spans createdAt → idledAt and was idle
 * lastActivityAt → idledAt (the list extends both to the time of reading); an active one spans
 * createdAt → lastActivityAt and has not been idle.
 */
function derive(row: SummaryRow): void {
  row.status = sessionStatus(row);
  const closed = row.end_status !== null || row.archived_at !== null;
  row.containment_type = closed
    ? (row.recorded_containment_type ?? unclassifiedContainment(row.end_status ?? row.status))
    : ACTIVE_CONTAINMENT;
  const start = row.created_at?.getTime();
  const lastActivity = row.last_activity_at?.getTime() ?? start;
  const idleUntil = row.ended_at ?? (row.status === IDLE ? row.idled_at : null);
  const end = idleUntil?.getTime() ?? lastActivity;
  row.duration_ms = start === undefined || end === undefined ? 0 : Math.max(0, end - start);
  row.idle_duration_ms =
    idleUntil === null || lastActivity === undefined ? 0 : Math.max(0, idleUntil.getTime() - lastActivity);
}

export function evolveSummary(
  row: SummaryRow | undefined,
  event: SessionScopedEvent,
  key: SummaryKey,
): SummaryRow {
  const next: SummaryRow = row ? { ...row } : emptyRow(key);
  applyEvent(next, event);
  next.summary_written_at = later(next.summary_written_at, event.recorded.recordedAt);
  derive(next);
  return next;
}
