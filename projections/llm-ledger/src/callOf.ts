import { type LlmCallRecordedData, parseEvent } from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';

// keys and evolve of both tables read the same event; parse it once. Keyed by the event object,
// so the cache lives exactly as long as the batch holding it and stays invisible to callers.
const parsed = new WeakMap<RecordedEvent, LlmCallRecordedData | null>();

/**
 * The call an event records, upcast to the current schema version and validated; null for any
 * other type. Invalid data throws (the runner stops the projection at that event, as it must: a
 * skipped call would be a hole in the ledger).
 */
export function callOf(event: RecordedEvent): LlmCallRecordedData | null {
  const cached = parsed.get(event);
  if (cached !== undefined) return cached;
  const result = parseEvent(event);
  const call = result.known && result.type === 'LlmCallRecorded' ? result.data : null;
  parsed.set(event, call);
  return call;
}
