import type { EventToAppend, RecordedEvent } from '@parley/event-envelope';

const viaJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * What a store would give back for an appended event, without a store: data and metadata go
 * through JSON as they do through the log. For unit tests of parsing, upcasting and projections.
 */
export function recordedFrom(event: EventToAppend, overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    eventId: event.eventId,
    type: event.type,
    schemaVersion: event.schemaVersion ?? 1,
    data: viaJson(event.data),
    metadata: viaJson(event.metadata ?? {}),
    stream: 'test-stream',
    revision: 0n,
    position: { commit: 1n, prepare: 1n },
    recordedAt: new Date('2024-11-21T09:30:00.000Z'),
    ...overrides,
  };
}
