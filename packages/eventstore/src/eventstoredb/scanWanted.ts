import type { AllStreamRecordedEvent, EventStoreDBClient } from '@eventstore/db-client';
import { comparePositions, formatPosition, type Position } from '../types.js';
import { fromEsdbPosition, isWanted } from './mapping.js';
import { scanAll } from './scanAll.js';

/**
 * Remembers stretches of $all known to hold no wanted event: "after `after`, nothing of these types up to
 * `emptyUpTo`". The log is append-only and ordered (no event ever appears before a position already
 * read), so such a fact stays true; a poller whose types are rare, whose checkpoint therefore does not
 * move, then reads only what is new instead of everything after its checkpoint on every poll.
 */
export interface ScanMemo {
  get(types: ReadonlySet<string> | undefined, after: Position | undefined): Position | undefined;
  set(types: ReadonlySet<string> | undefined, after: Position | undefined, emptyUpTo: Position): void;
}

export function createScanMemo(maxEntries = 1024): ScanMemo {
  const entries = new Map<string, Position>();
  const key = (types: ReadonlySet<string> | undefined, after: Position | undefined) =>
    `${types ? JSON.stringify([...types].sort()) : '*'}@${after ? formatPosition(after) : 'start'}`;
  return {
    get: (types, after) => entries.get(key(types, after)),
    set(types, after, emptyUpTo) {
      const k = key(types, after);
      entries.delete(k);
      entries.set(k, emptyUpTo);
      // Maps iterate in insertion order: the first key is the least recently written.
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
  };
}

/**
 * The wanted events (user events, of `types` when given) strictly after `after`, in log order. Reaching
 * the end of the log records the empty stretch behind the last wanted event in `memo`.
 */
export async function* scanWanted(
  client: EventStoreDBClient,
  memo: ScanMemo,
  options: { after?: Position; types?: ReadonlySet<string>; pageSize: number },
): AsyncGenerator<AllStreamRecordedEvent> {
  const { after, types, pageSize } = options;
  const from = memo.get(types, after) ?? after;
  let lastWanted = after;
  let lastSeen = from;
  for await (const event of scanAll(client, { direction: 'forwards', after: from, pageSize })) {
    lastSeen = fromEsdbPosition(event.position);
    if (!isWanted(event, types)) continue;
    lastWanted = lastSeen;
    yield event;
  }
  if (lastSeen && (!lastWanted || comparePositions(lastSeen, lastWanted) > 0)) {
    memo.set(types, lastWanted, lastSeen);
  }
}
