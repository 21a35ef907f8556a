import type { RecordedEvent } from '@parley/eventstore';
import { parsedSessionEvent } from './parsedSessionEvent.js';
import type { SummaryRow } from './sessionSummariesProjection.js';
import { evolveSummary } from './summaryRow.js';

/**
 * The summary row of one session from its events (e.g. its stream), exactly as the projection
 * folds them: the worker's lifecycle sweep decides from it, so "last activity" and "idle" mean the
 * same thing on both sides. null when none of the events is a session event.
 */
export function summarizeSession(events: Iterable<RecordedEvent>): SummaryRow | null {
  let row: SummaryRow | undefined;
  for (const event of events) {
    const parsed = parsedSessionEvent(event);
    if (!parsed) continue;
    row = evolveSummary(row, parsed, { project_id: parsed.data.projectId, id: parsed.data.sessionId });
  }
  return row ?? null;
}
