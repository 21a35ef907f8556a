import {
  type HttpAsyncCallbackAttemptedData,
  type HttpAsyncCallbackDeadLetteredData,
  type HttpAsyncCallbackDeliveredData,
  type HttpAsyncCallbackQueuedData,
  parseEvent,
} from '@parley/events';
import type { RecordedEvent } from '@parley/eventstore';

/** The callback delivery events this projection reads. */
export const DELIVERY_EVENT_TYPES = [
  'HttpAsyncCallbackQueued',
  'HttpAsyncCallbackAttempted',
  'HttpAsyncCallbackDelivered',
  'HttpAsyncCallbackDeadLettered',
] as const;

export type DeliveryEvent =
  | { type: 'HttpAsyncCallbackQueued'; data: HttpAsyncCallbackQueuedData }
  | { type: 'HttpAsyncCallbackAttempted'; data: HttpAsyncCallbackAttemptedData }
  | { type: 'HttpAsyncCallbackDelivered'; data: HttpAsyncCallbackDeliveredData }
  | { type: 'HttpAsyncCallbackDeadLettered'; data: HttpAsyncCallbackDeadLetteredData };

// keys() and evolve() of both tables see the same event object: parse (upcast, validate) it once.
const cache = new WeakMap<RecordedEvent, DeliveryEvent | null>();

/**
 * The event, upcast and validated, when it is a delivery event; null otherwise. Invalid data
 * throws, which stops the projection rather than skipping an attempt.
 */
export function deliveryEvent(event: RecordedEvent): DeliveryEvent | null {
  const cached = cache.get(event);
  if (cached !== undefined) return cached;
  const parsed = parseEvent(event);
  let result: DeliveryEvent | null = null;
  if (parsed.known) {
    switch (parsed.type) {
      case 'HttpAsyncCallbackQueued':
      case 'HttpAsyncCallbackAttempted':
      case 'HttpAsyncCallbackDelivered':
      case 'HttpAsyncCallbackDeadLettered':
        result = parsed as DeliveryEvent;
        break;
      default:
        break;
    }
  }
  cache.set(event, result);
  return result;
}
