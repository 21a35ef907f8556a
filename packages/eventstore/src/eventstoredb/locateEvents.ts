import { BACKWARDS, END, type EventStoreDBClient, StreamNotFoundError } from '@eventstore/db-client';
import type { Position } from '../types.js';
import { positionOf } from './mapping.js';

/** The searched ids (lower case) found among the events read, with where they are. */
export type LocatedEvents = Map<string, { revision: bigint; position: Position }>;

/**
 * Looks for `ids` (lower case) among the last `depth` events of `stream`, newest first: a retried batch
 * sits near the end, so the search usually stops after a page. Finding none means reading all `depth`.
 */
export async function locateEvents(
  client: EventStoreDBClient,
  stream: string,
  ids: readonly string[],
  depth: number,
): Promise<LocatedEvents> {
  const located: LocatedEvents = new Map();
  if (depth <= 0) return located;
  const wanted = new Set(ids);
  const read = client.readStream(stream, {
    direction: BACKWARDS,
    fromRevision: END,
    ...(Number.isFinite(depth) ? { maxCount: Math.floor(depth) } : {}),
  });
  try {
    for await (const resolved of read) {
      const { event } = resolved;
      const id = event?.id.toLowerCase();
      if (!event || !id) continue;
      if (wanted.has(id) && !located.has(id)) {
        located.set(id, {
          revision: event.revision,
          position: positionOf(event, resolved.commitPosition),
        });
        if (located.size === wanted.size) break;
      }
    }
  } catch (err) {
    if (err instanceof StreamNotFoundError) return located;
    throw err;
  } finally {
    // Leaving the loop early leaves the gRPC call open unless it is cancelled (a no-op once it ended).
    await read.cancel().catch(() => undefined);
  }
  return located;
}
