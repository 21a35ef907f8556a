import { parseEvent, VOICE_CALL_FINAL_STATUSES } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';

/**
 * The longest a call counts as live after its latest status: a call whose final status callback
 * was lost must not keep its session open for ever. Four hours is the telephony providers' own
 * longest call (Twilio's default time limit, 14,400 s).
 */
export const LIVE_CALL_MAX_MS = 4 * 3_600_000;

/** What a session's calls say about its activity (VoiceCallStatusChanged in its own stream). */
export interface CallActivity {
  /** Some call's latest status is not final: the call is still going. */
  live: boolean;
  /** When the latest call status changed (epoch ms), or null with no call. */
  lastChangeAt: number | null;
}

export const NO_CALLS: CallActivity = { live: false, lastChangeAt: null };

const finalStatuses: ReadonlySet<string> = new Set(VOICE_CALL_FINAL_STATUSES);

/**
 * A live call is activity (docs/sessions.md): a caller on hold or listening says nothing for
 * minutes, yet the session is not idle, and abandoning it would end the session under a call whose
 * recordings are still to come. Per call, the latest status is the one with the highest sequence
 * number (the provider's order), then the latest in the log.
 */
export function callActivity(events: readonly RecordedEvent[]): CallActivity {
  const latest = new Map<string, { status: string; sequence: number }>();
  let lastChangeAt: number | null = null;
  for (const event of events) {
    const parsed = parseEvent(event);
    if (!parsed.known || parsed.type !== 'VoiceCallStatusChanged') continue;
    const { callId, status, sequenceNumber, occurredAt, reportedAt } = parsed.data;
    const sequence = sequenceNumber ?? -1;
    const seen = latest.get(callId);
    if (seen === undefined || sequence >= seen.sequence) latest.set(callId, { status, sequence });
    const at = Date.parse(occurredAt ?? reportedAt);
    if (Number.isFinite(at) && (lastChangeAt === null || at > lastChangeAt)) lastChangeAt = at;
  }
  const live = [...latest.values()].some((call) => !finalStatuses.has(call.status));
  return { live, lastChangeAt };
}

/**
 * The session's last activity for the lifecycle sweep: its own (messages, replies, …), or its
 * latest call status if later, or `now` while a call is live (for at most LIVE_CALL_MAX_MS after
 * that call's latest status).
 */
export function lastActivityWithCalls(own: number, calls: CallActivity, now: number): number {
  if (calls.lastChangeAt === null) return own;
  const latest = Math.max(own, calls.lastChangeAt);
  if (!calls.live) return latest;
  return Math.max(latest, Math.min(now, calls.lastChangeAt + LIVE_CALL_MAX_MS));
}
