import {
  type LlmCallRecordedData,
  parseEvent,
  type SessionStartedData,
  type TraceEventRecordedData,
  type VoiceCallStatusChangedData,
} from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';

/** The events the traces projection reads, upcast and validated. */
export type TracesEvent =
  | { type: 'TraceEventRecorded'; data: TraceEventRecordedData }
  | { type: 'LlmCallRecorded'; data: LlmCallRecordedData }
  | { type: 'SessionStarted'; data: SessionStartedData }
  | { type: 'VoiceCallStatusChanged'; data: VoiceCallStatusChangedData };

// Every table's keys and evolve read the same event: parse it once per event object (the cache
// lives as long as the batch holding the event).
const parsed = new WeakMap<RecordedEvent, TracesEvent | null>();

/**
 * The event as the projection reads it; null for other types. Invalid data throws: the runner stops
 * the projection at that event, as it must (a skipped span would be a hole in the trace).
 */
export function tracesEventOf(event: RecordedEvent): TracesEvent | null {
  const cached = parsed.get(event);
  if (cached !== undefined) return cached;
  const result = parseEvent(event);
  let value: TracesEvent | null = null;
  if (result.known) {
    if (result.type === 'TraceEventRecorded') value = { type: result.type, data: result.data };
    else if (result.type === 'LlmCallRecorded') value = { type: result.type, data: result.data };
    else if (result.type === 'SessionStarted') value = { type: result.type, data: result.data };
    else if (result.type === 'VoiceCallStatusChanged') value = { type: result.type, data: result.data };
  }
  parsed.set(event, value);
  return value;
}
