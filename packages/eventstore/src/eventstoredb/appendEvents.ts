import type { EventStoreDBClient } from '@eventstore/db-client';
import type { Logger } from '@parley/platform';
import {
  type AppendResult,
  EventIdConflictError,
  type EventToAppend,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '../types.js';
import { type LocatedEvents, locateEvents } from './locateEvents.js';
import {
  fromEsdbPosition,
  isEsdbWrongExpectedVersion,
  toActualRevision,
  toEsdbExpectedRevision,
  toEventData,
  toWrongExpectedVersionError,
} from './mapping.js';

export interface AppendDeps {
  client: EventStoreDBClient;
  logger: Logger;
  /** How many of the stream's latest events are searched for the batch's ids before writing. */
  idCheckDepth: number;
}

/**
 * The port's idempotency on top of EventStoreDB's own (see README.md, "Idempotency"): the server only
 * dedupes a batch that lines up with the events right after the expected revision, or, with `any`, whose
 * first id is still in its cache of recent ids. So the stream is searched for the ids before writing, and
 * again when the server answers WrongExpectedVersion (the stream may have moved on since a retried
 * batch was first written).
 */
export async function appendEvents(
  deps: AppendDeps,
  stream: string,
  events: readonly EventToAppend[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  checkAppendInput(stream, events);
  const ids = events.map((event) => event.eventId.toLowerCase());
  const expectedRevision = toEsdbExpectedRevision(expected);

  const before = await settleFromStream(deps, stream, ids, deps.idCheckDepth);
  if (before) return before;

  let result: Awaited<ReturnType<EventStoreDBClient['appendToStream']>>;
  try {
    result = await deps.client.appendToStream(stream, events.map(toEventData), { expectedRevision });
  } catch (err) {
    if (!isEsdbWrongExpectedVersion(err)) throw err;
    const after = await settleFromStream(deps, stream, ids, Number.POSITIVE_INFINITY);
    if (after) return after;
    throw toWrongExpectedVersionError(err, stream, expected);
  }
  if (!result.success) {
    // A client built with throwOnAppendFailure: false reports the conflict instead of throwing it.
    const after = await settleFromStream(deps, stream, ids, Number.POSITIVE_INFINITY);
    if (after) return after;
    throw new WrongExpectedVersionError(stream, expected, toActualRevision(result.nextExpectedRevision));
  }
  if (result.position) {
    return { nextRevision: result.nextExpectedRevision, position: fromEsdbPosition(result.position) };
  }
  // The server deduped the batch itself and sent no position: take it from the events already there.
  const deduped = await settleFromStream(deps, stream, ids, Number.POSITIVE_INFINITY);
  if (deduped) return deduped;
  throw new Error(`append to ${stream} succeeded without a position, and its events cannot be found`);
}

/**
 * All ids already in the stream: a retry, answered with the original result (the batch's last event);
 * some: EventIdConflictError; none: undefined, go ahead.
 */
async function settleFromStream(
  deps: AppendDeps,
  stream: string,
  ids: readonly string[],
  depth: number,
): Promise<AppendResult | undefined> {
  const found = await locateEvents(deps.client, stream, ids, depth);
  return settle(stream, ids, found, deps.logger);
}

function settle(
  stream: string,
  ids: readonly string[],
  found: LocatedEvents,
  logger?: Logger,
): AppendResult | undefined {
  if (found.size === 0) return undefined;
  if (found.size < ids.length) {
    const recorded = [...found.keys()].sort();
    logger?.warn({ stream, eventIds: recorded }, 'append refused: some event ids already recorded');
    throw new EventIdConflictError(stream, recorded);
  }
  const last = [...found.values()].reduce((a, b) => (b.revision > a.revision ? b : a));
  logger?.debug({ stream, events: ids.length }, 'append is a retry of recorded events: nothing written');
  return { nextRevision: last.revision, position: last.position };
}

/** The same refusals as the PostgreSQL adapter, before anything reaches the server. */
function checkAppendInput(stream: string, events: readonly EventToAppend[]): void {
  if (stream.length === 0) throw new TypeError('append: the stream name is empty');
  if (events.length === 0) throw new TypeError(`append to ${stream}: a batch needs at least one event`);
  const seen = new Set<string>();
  for (const event of events) {
    const id = event.eventId.toLowerCase();
    if (seen.has(id))
      throw new TypeError(`append to ${stream}: event id ${event.eventId} appears twice in the batch`);
    seen.add(id);
  }
}
