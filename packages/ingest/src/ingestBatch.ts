import {
  canAppendInTransaction,
  EventIdConflictError,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type PostgresEventStore,
  WrongExpectedVersionError,
  withLogTransaction,
} from '@parley/eventstore';
import type { Pool } from '@parley/platform';
import type { ItemError, PreparedItem } from './prepareItems.js';
import { streamOwners } from './streamOwners.js';

export type ItemResult =
  | { index: number; id: string; status: 'accepted'; eventId: string; stream: string }
  | { index: number; id: string | null; status: 'rejected'; error: ItemError };

type Accepted = Extract<PreparedItem, { ok: true }>;
type Append = (
  stream: string,
  events: readonly EventToAppend[],
  expectedRevision: ExpectedRevision,
) => Promise<unknown>;

/** How many times a batch is checked again when another project created one of its new streams meanwhile. */
const OWNERSHIP_ATTEMPTS = 3;

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

/**
 * A session or recording id is the client's choice and names one stream for every project: an id
 * another project's facts already use is refused on the item alone (its project is not named).
 */
function inUse(item: Accepted): ItemResult {
  const field = item.stream.startsWith('recording-') ? 'recordingId' : 'sessionId';
  return {
    index: item.index,
    id: item.id,
    status: 'rejected',
    error: {
      code: 'ID_IN_USE',
      message: `this ${field} is used by another project: choose ids unique to this project`,
      details: { issues: [{ path: `data.${field}`, message: 'used by another project' }] },
    },
  };
}

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
async function appendGroups(
  groups: Map<string, Accepted[]>,
  isNew: (stream: string) => boolean,
  append: Append,
): Promise<ItemResult[]> {
  const results: ItemResult[] = [];
  for (const [stream, items] of groups) {
    // A stream found absent is created only if it still is: another project creating it meanwhile
    // is a WrongExpectedVersionError, and the batch is checked again.
    let expected: ExpectedRevision = isNew(stream) ? 'no_stream' : 'any';
    try {
      await append(
        stream,
        items.map((i) => i.event),
        expected,
      );
      results.push(...items.map(accepted));
    } catch (err) {
      if (!(err instanceof EventIdConflictError)) throw err;
      for (const item of items) {
        try {
          await append(stream, [item.event], expected);
          expected = 'any';
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
 * per stream. Items whose stream belongs to another project are refused
 * (ID_IN_USE) before anything is appended.
 */
export async function ingestBatch(
  deps: { store: EventStore; pool?: Pool },
  prepared: readonly PreparedItem[],
  projectId: string,
): Promise<ItemResult[]> {
  const rejected: ItemResult[] = prepared
    .filter((p): p is Extract<PreparedItem, { ok: false }> => !p.ok)
    .map((p) => ({ index: p.index, id: p.id, status: 'rejected', error: p.error }));
  const valid = prepared.filter((p): p is Accepted => p.ok);
  for (let attempt = 1; ; attempt++) {
    try {
      const results = valid.length === 0 ? [] : await appendOwnStreams(deps, valid, projectId);
      return [...rejected, ...results].sort((a, b) => a.index - b.index);
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError) || attempt >= OWNERSHIP_ATTEMPTS) throw err;
    }
  }
}

/**
 * The usual batch (every id new, every new stream still absent) in one round trip: every group's
 * append in one call, all or nothing. A new stream created meanwhile throws
 * WrongExpectedVersionError, as the per-stream way does (ingestBatch checks the owners again);
 * null when an id is already recorded: nothing was written, and the batch goes the per-stream way,
 * which tells each item's outcome.
 */
async function appendAllAtOnce(
  store: PostgresEventStore,
  groups: Map<string, Accepted[]>,
  isNew: (stream: string) => boolean,
): Promise<ItemResult[] | null> {
  const appends = [...groups].map(([stream, items]) => ({
    stream,
    events: items.map((i) => i.event),
    expectedRevision: isNew(stream) ? ('no_stream' as const) : ('any' as const),
  }));
  const results = await store.tryAppendAll(appends);
  return results === null ? null : [...groups.values()].flatMap((items) => items.map(accepted));
}

async function appendOwnStreams(
  deps: { store: EventStore; pool?: Pool },
  valid: readonly Accepted[],
  projectId: string,
): Promise<ItemResult[]> {
  const { store, pool } = deps;
  const groups = groupByStream(valid);
  const owners = await streamOwners(store, [...groups.keys()]);
  const foreign: ItemResult[] = [];
  for (const [stream, items] of groups) {
    const owner = owners.get(stream);
    if (owner !== null && owner !== undefined && owner !== projectId) {
      foreign.push(...items.map(inUse));
      groups.delete(stream);
    }
  }
  const isNew = (stream: string) => owners.get(stream) === null;
  let appended: ItemResult[] = [];
  if (groups.size > 0) {
    const all = canAppendInTransaction(store) ? await appendAllAtOnce(store, groups, isNew) : null;
    if (all) appended = all;
    else if (canAppendInTransaction(store) && pool) {
      // Another appender of one of these streams committing out of transaction-id order makes
      // withLogTransaction run the batch again in a newer transaction (docs/log.md).
      appended = await withLogTransaction(pool, store, (tx) =>
        appendGroups(groups, isNew, (stream, events, expectedRevision) =>
          store.appendWith(tx.client, stream, events, { expectedRevision }),
        ),
      );
    } else {
      appended = await appendGroups(groups, isNew, (stream, events, expectedRevision) =>
        store.append(stream, events, { expectedRevision }),
      );
    }
  }
  return [...foreign, ...appended];
}
