import {
  type AllStreamRecordedEvent,
  type AllStreamResolvedEvent,
  BACKWARDS,
  END,
  type EventStoreDBClient,
  FORWARDS,
  type ReadPosition,
  START,
} from '@eventstore/db-client';
import { comparePositions, type Position } from '../types.js';
import { fromEsdbPosition, toEsdbPosition } from './mapping.js';

export type ScanAllOptions =
  | { direction: 'forwards' /** exclusive */; after?: Position; pageSize: number }
  | { direction: 'backwards'; pageSize: number };

/**
 * Every record of $all (system ones included: callers filter), in pages of `pageSize`, strictly after
 * `after` going forwards, from the end going backwards.
 *
 * The client's readAll has no server-side filter in v6, and its `fromPosition` is inclusive (reading one
 * event from an event's position returns that same event). Each page therefore starts at the last
 * position seen and drops every record not strictly beyond it, which is right whether the server
 * includes the start position or not.
 */
export async function* scanAll(
  client: EventStoreDBClient,
  options: ScanAllOptions,
): AsyncGenerator<AllStreamRecordedEvent> {
  const forwards = options.direction === 'forwards';
  // At least 2, so that an inclusive page always holds one record beyond its start.
  const pageSize = Math.max(2, Math.floor(options.pageSize));
  let bound = options.direction === 'forwards' ? options.after : undefined;
  let from: ReadPosition = bound ? toEsdbPosition(bound) : forwards ? START : END;
  for (;;) {
    const page = await readPage(client, from, forwards, pageSize);
    let progressed = false;
    for (const { event } of page) {
      // Without resolveLinkTos every record has `event` (a link is its own `$>` event).
      if (!event) continue;
      const position = fromEsdbPosition(event.position);
      if (
        bound &&
        (forwards ? comparePositions(position, bound) <= 0 : comparePositions(position, bound) >= 0)
      ) {
        continue;
      }
      bound = position;
      progressed = true;
      yield event;
    }
    if (page.length < pageSize) return;
    if (!progressed || !bound) {
      throw new Error(`reading $all made no progress from ${formatReadPosition(from)}`);
    }
    from = toEsdbPosition(bound);
  }
}

async function readPage(
  client: EventStoreDBClient,
  fromPosition: ReadPosition,
  forwards: boolean,
  maxCount: number,
): Promise<AllStreamResolvedEvent[]> {
  const page: AllStreamResolvedEvent[] = [];
  const read = client.readAll({ fromPosition, direction: forwards ? FORWARDS : BACKWARDS, maxCount });
  for await (const resolved of read) page.push(resolved);
  return page;
}

function formatReadPosition(position: ReadPosition): string {
  return typeof position === 'string' ? position : `${position.commit}/${position.prepare}`;
}
