import { type EventDataInput, toAppend } from '@parley/events';
import type { EventToAppend } from '@parley/eventstore';
import { deriveEventId } from '@parley/ingest';
import { ARCHIVED, IDLE, type SummaryRow } from '@parley/projection-session-summaries';
import { type CallActivity, lastActivityWithCalls, NO_CALLS } from './callActivity.js';

/** The timed transitions' thresholds (SESSION_IDLE_AFTER_SECONDS, ..._ABANDON_..., ..._ARCHIVE_AFTER_DAYS). */
export interface LifecycleThresholds {
  idleAfterMs: number;
  /** Greater than idleAfterMs. */
  abandonAfterMs: number;
  archiveAfterMs: number;
}

/** The `reason` of the SessionEnded that abandons a session. */
export const ABANDON_REASON = 'inactivity_timeout';

export type LifecycleTransition =
  | { type: 'SessionIdled'; data: EventDataInput<'SessionIdled'>; key: string }
  | { type: 'SessionEnded'; data: EventDataInput<'SessionEnded'>; key: string }
  | { type: 'SessionArchived'; data: EventDataInput<'SessionArchived'>; key: string };

const at = (ms: number) => new Date(ms).toISOString();

/**
 * The events that bring a session up to date at `now` (docs/sessions.md), in order; empty when it
 * is. Every time in them is derived from the session (last activity or end, plus a threshold), not
 * from `now`, and every event's key names the fact it records: two sweeps that decide on the same
 * stream produce the same events with the same ids. A sweep that ran late appends every transition
 * it missed (idle, abandoned, archived) at once, each at the time it became due. A live call is
 * activity (`calls`, from the session's own stream): no transition is due while it lasts, and the
 * thresholds run from its end.
 */
export function lifecycleTransitions(
  row: SummaryRow,
  now: Date,
  thresholds: LifecycleThresholds,
  calls: CallActivity = NO_CALLS,
): LifecycleTransition[] {
  if (row.created_at === null || row.status === ARCHIVED) return [];
  const scope = { sessionId: row.id, projectId: row.project_id };
  const archive = (endedAt: number): LifecycleTransition[] =>
    endedAt + thresholds.archiveAfterMs <= now.getTime()
      ? [
          {
            type: 'SessionArchived',
            data: { ...scope, endedAt: at(endedAt), archivedAt: at(endedAt + thresholds.archiveAfterMs) },
            key: `${row.id}:archived`,
          },
        ]
      : [];
  if (row.end_status !== null && row.ended_at !== null) return archive(row.ended_at.getTime());

  const lastActivity = lastActivityWithCalls(
    (row.last_activity_at ?? row.created_at).getTime(),
    calls,
    now.getTime(),
  );
  const lastActivityAt = at(lastActivity);
  const out: LifecycleTransition[] = [];
  const idleAt = lastActivity + thresholds.idleAfterMs;
  if (row.status !== IDLE && idleAt <= now.getTime()) {
    out.push({
      type: 'SessionIdled',
      data: { ...scope, lastActivityAt, idledAt: at(idleAt) },
      key: `${row.id}:idled:${lastActivityAt}`,
    });
  }
  const abandonAt = lastActivity + thresholds.abandonAfterMs;
  if (abandonAt <= now.getTime()) {
    out.push({
      type: 'SessionEnded',
      data: {
        ...scope,
        status: 'abandoned',
        containmentType: 'abandoned',
        reason: ABANDON_REASON,
        endedAt: at(abandonAt),
      },
      key: `${row.id}:abandoned:${lastActivityAt}`,
    });
    out.push(...archive(abandonAt));
  }
  return out;
}

/** One transition's event: a switch, so each type's data is checked against its own schema. */
function transitionEvent(t: LifecycleTransition, metadata: { tenantId?: string }): EventToAppend {
  const id = deriveEventId(`session-lifecycle:${t.data.projectId}`, t.key);
  switch (t.type) {
    case 'SessionIdled':
      return toAppend(t.type, t.data, metadata, id);
    case 'SessionEnded':
      return toAppend(t.type, t.data, metadata, id);
    case 'SessionArchived':
      return toAppend(t.type, t.data, metadata, id);
    default: {
      const exhaustive: never = t;
      return exhaustive;
    }
  }
}

/** The transitions as events to append, with ids derived from their keys (idempotent appends). */
export function transitionEvents(
  transitions: readonly LifecycleTransition[],
  metadata: { tenantId?: string },
): EventToAppend[] {
  return transitions.map((t) => transitionEvent(t, metadata));
}
