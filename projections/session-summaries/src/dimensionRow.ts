import { createHash } from 'node:crypto';
import type { SessionScopedEvent } from './parsedSessionEvent.js';
import type { DimensionKey, DimensionRow } from './sessionSummariesProjection.js';
import { winsAsStart } from './winner.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Row key of a dimension name (names are unbounded strings; btree entries are not). */
export const dimensionNameKey = (name: string): string => sha256(name);

/** What the traceDimensions filter looks up: one hash of the exact (name, value) pair. */
export const dimensionMatchKey = (name: string, value: string): string =>
  sha256(JSON.stringify([name, value]));

type SessionStarted = Extract<SessionScopedEvent, { type: 'SessionStarted' }>;

/** Keeps the dimension as the winning start (earliest) among those that carry this name gives it. */
export function evolveDimension(
  row: DimensionRow | undefined,
  event: SessionStarted,
  key: DimensionKey,
): DimensionRow | undefined {
  const stamp = { at: new Date(event.data.startedAt), eventId: event.recorded.eventId };
  const current = row && { at: row.started_at, eventId: row.started_event_id };
  if (!winsAsStart(stamp, current)) return row;
  const entry = Object.entries(event.data.traceDimensions).find(
    ([name]) => dimensionNameKey(name) === key.name_key,
  );
  if (!entry) return row;
  return {
    ...key,
    match_key: dimensionMatchKey(entry[0], entry[1]),
    started_event_id: stamp.eventId,
    started_at: stamp.at,
  };
}
