import {
  canAppendInTransaction,
  EventIdConflictError,
  type EventStore,
  type EventToAppend,
  withLogTransaction,
} from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import type { ItemError, PreparedItem } from './prepareItems.js';

export type ItemResult =
  | { index: number; id: string; status: 'accepted'; eventId: string; stream: string }
  | { index: number; id: string | null; status: 'rejected'; error: ItemError };

type Accepted = Extract<PreparedItem, { ok: true }>;
type Append = (stream: string, events: readonly EventToAppend[]) => Promise<unknown>;

function groupByStream(items: readonly Accepted[]): Map<string, Accepted[]> {
  const groups = new Map<string, Accepted[]>();
  for (const item of items) {
    const group = groups.get(item.stream);
    if (group) group.push(item);
    else groups.set(item.stream, [item]);
  }
  return groups;
}

const conflict = (item: Accepted): ItemResult => ({
  index: item.index,
  id: item.id,
  status: 'rejected',
  error: {
    code: 'EVENT_ID_CONFLICT',
    message: 'this item id was already used for a fact of another session or stream',
    details: { issues: [{ path: 'id', message: 'already used' }] },
  },
});

const accepted = (item: Accepted): ItemResult => ({
  index: item.index,
  id: item.id,
  status: 'accepted',
  eventId: item.event.eventId,
  stream: item.stream,
});

/**
 * Appends each stream's items in request order with one append per stream.
 * A group whose ids are partly recorded already (a retried, partly applied
 * batch) falls back to one append per item, so that recorded items stay
 * accepted (idempotent) and new ones are appended.
 */
async function appendGroups(groups: Map<string, Accepted[]>, append: Append): Promise<ItemResult[]> {
  const results: ItemResult[] = [];
  for (const [stream, items] of groups) {
    try {
      await append(
        stream,
        items.map((i) => i.event),
      );
      results.push(...items.map(accepted));
    } catch (err) {
      if (!(err instanceof EventIdConflictError)) throw err;
      for (const item of items) {
        try {
          await append(stream, [item.event]);
          results.push(accepted(item));
        } catch (itemErr) {
          if (!(itemErr instanceof EventIdConflictError)) throw itemErr;
          results.push(conflict(item));
        }
      }
    }
  }
  return results;
}

/**
 * Appends the valid items of a batch and reports one result per item, in
 * request order. On PostgreSQL the whole batch is one transaction (appends
 * with savepoints), so a large batch costs one commit; elsewhere one append
 * per stream.
 */
export async function ingestBatch(
  deps: { store: EventStore; pool?: Pool },
  prepared: readonly PreparedItem[],
): Promise<ItemResult[]> {
  const rejected: ItemResult[] = prepared
    .filter((p): p is Extract<PreparedItem, { ok: false }> => !p.ok)
    .map((p) => ({ index: p.index, id: p.id, status: 'rejected', error: p.error }));
  const groups = groupByStream(prepared.filter((p): p is Accepted => p.ok));
  let appended: ItemResult[] = [];
  if (groups.size > 0) {
    const { store, pool } = deps;
    if (canAppendInTransaction(store) && pool) {
      // Another appender of one of these streams committing out of transaction-id order makes
      // withLogTransaction run the batch again in a newer transaction (docs/log.md).
      appended = await withLogTransaction(pool, store, (tx) =>
        appendGroups(groups, (stream, events) => store.appendWith(tx.client, stream, events)),
      );
    } else {
      appended = await appendGroups(groups, (stream, events) => store.append(stream, events));
    }
  }
  return [...rejected, ...appended].sort((a, b) => a.index - b.index);
}
