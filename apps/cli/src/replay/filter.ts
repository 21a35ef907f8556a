import type { RecordedEvent } from '@parley/eventstore';

export interface ReplayFilter {
  stream?: string;
  types?: readonly string[];
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
  projectId?: string;
}

/**
 * Whether an event belongs in a replay: every given criterion must hold
 * (types: any of them). Time is the event's recordedAt.
 */
export function matchesReplayFilter(filter: ReplayFilter, event: RecordedEvent): boolean {
  if (filter.stream !== undefined && event.stream !== filter.stream) return false;
  if (filter.types !== undefined && filter.types.length > 0 && !filter.types.includes(event.type))
    return false;
  if (filter.from !== undefined && event.recordedAt.getTime() < filter.from.getTime()) return false;
  if (filter.to !== undefined && event.recordedAt.getTime() >= filter.to.getTime()) return false;
  if (filter.projectId !== undefined && event.metadata.projectId !== filter.projectId) return false;
  return true;
}

/** One JSON line per event; 64-bit numbers as strings, the position as `commit/prepare`. */
export function toJsonLine(event: RecordedEvent): string {
  return `${JSON.stringify({
    position: `${event.position.commit}/${event.position.prepare}`,
    stream: event.stream,
    revision: event.revision.toString(),
    eventId: event.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion,
    recordedAt: event.recordedAt.toISOString(),
    metadata: event.metadata,
    data: event.data,
  })}\n`;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Parses a --from/--to value: an ISO 8601 date or date-time. */
export function parseInstant(text: string, flag: string): Date {
  const trimmed = text.trim();
  const date = new Date(trimmed);
  if (!ISO_INSTANT.test(trimmed) || Number.isNaN(date.getTime())) {
    throw new Error(`${flag} must be an ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T08:00:00Z`);
  }
  return date;
}
