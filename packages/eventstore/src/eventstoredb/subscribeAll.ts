import { type EventStoreDBClient, eventTypeFilter, excludeSystemEvents, START } from '@eventstore/db-client';
import { comparePositions, type RecordedEvent, type SubscribeAllOptions, type Upcast } from '../types.js';
import { eventTypesRegex, fromEsdbPosition, isWanted, toEsdbPosition, toRecordedEvent } from './mapping.js';

export interface SubscribeDeps {
  client: EventStoreDBClient;
  upcast: Upcast;
  /** Default for options.batchSize: events buffered ahead of the consumer. */
  batchSize: number;
  /** Aborted when the store closes. */
  closing: AbortSignal;
}

/**
 * A catch-up subscription to $all. The server filters by event type (or drops system events); the same
 * checks run again here, along with the exclusive `after` and a monotonic position check, so that no
 * system record, link (`$>`) or repeat reaches the caller whatever the server version does.
 */
export async function* subscribeAll(
  deps: SubscribeDeps,
  options: SubscribeAllOptions = {},
): AsyncGenerator<RecordedEvent> {
  const signal = options.signal ? AbortSignal.any([options.signal, deps.closing]) : deps.closing;
  if (signal.aborted) return;
  const types = options.eventTypes ? new Set(options.eventTypes) : undefined;
  if (types?.size === 0) {
    // No type can match: nothing to subscribe to, only the end to wait for.
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return;
  }

  const subscription = deps.client.subscribeToAll(
    {
      // The server starts a subscription after this position (exclusive), like the port.
      fromPosition: options.after ? toEsdbPosition(options.after) : START,
      filter: options.eventTypes
        ? eventTypeFilter({ regex: eventTypesRegex(options.eventTypes) })
        : excludeSystemEvents(),
    },
    { highWaterMark: options.batchSize ?? deps.batchSize },
  );
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    // Errors the dying gRPC call emits later have no reader left; without a listener they would crash.
    subscription.on('error', () => undefined);
    subscription.unsubscribe().catch(() => undefined);
    subscription.destroy();
  };
  signal.addEventListener('abort', stop, { once: true });

  let last = options.after;
  try {
    for await (const { event } of subscription) {
      if (signal.aborted) return;
      if (!event || !isWanted(event, types)) continue;
      const position = fromEsdbPosition(event.position);
      if (last && comparePositions(position, last) <= 0) continue;
      last = position;
      yield deps.upcast(toRecordedEvent(event));
    }
  } catch (err) {
    // Destroying the stream on abort ends the loop with a premature-close error: that is the normal end.
    if (signal.aborted) return;
    throw err;
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
}
