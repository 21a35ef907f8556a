import { ParleyError } from '@parley/platform/errors';
/**
 * The EventStore port (DESIGN.md "The log store"). Two adapters implement it,
 * PostgreSQL (the default) and EventStoreDB, and both pass the contract suite
 * in ./testing/contract.ts.
 */

import type { EventToAppend, Position, RecordedEvent } from '@parley/event-envelope';

// The envelope and positions are the catalog's too: they live in the dependency-free
// @parley/event-envelope, re-exported here for the store's users.
export {
  comparePositions,
  type EventMetadata,
  type EventToAppend,
  formatPosition,
  type Position,
  parsePosition,
  type RecordedEvent,
  START,
  type Upcast,
} from '@parley/event-envelope';

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  /** Revision of the last event now in the stream (what to pass as expectedRevision next). */
  nextRevision: bigint;
  /** Position of the last appended event. */
  position: Position;
}

export interface ReadStreamOptions {
  fromRevision?: bigint;
  direction?: 'forwards' | 'backwards';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omitted: from the start. */
  after?: Position;
  maxCount: number;
  /** Only these event types. Omitted: all. */
  eventTypes?: readonly string[];
}

export interface SubscribeAllOptions {
  after?: Position;
  eventTypes?: readonly string[];
  /** Stops the subscription; the iterator then ends. */
  signal?: AbortSignal;
  /** Events fetched per read while catching up. */
  batchSize?: number;
}

export interface LogHead {
  position: Position;
  recordedAt: Date;
}

/**
 * Bare wake-ups of a store's log: no events, only "the log may have grown, read again". A lost or
 * extra one costs latency, never events: readers always re-read the log after their checkpoint.
 */
export interface LogWakeups {
  /** Bumped by every wake-up; a reader notes it before reading and waits with it. */
  generation(): number;
  /** Resolves at the first wake-up after `seen`, after `ms`, or on abort. */
  wait(seen: number, ms: number, signal: AbortSignal): Promise<'woken' | 'timeout' | 'aborted'>;
}

export interface EventStore {
  append(stream: string, events: readonly EventToAppend[], options?: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  /** One batch in log order, strictly after `after`. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up, then live, in log order; never skips an event that commits late. */
  subscribeAll(options?: SubscribeAllOptions): AsyncIterable<RecordedEvent>;
  /**
   * The last event of the log readers can see (or null when there is none). With `committed`, the
   * last event committed, even one readers cannot see yet: in PostgreSQL an append becomes readable
   * once no older transaction of the cluster is open (docs/log.md); EventStoreDB shows every commit.
   */
  head(options?: { committed?: boolean }): Promise<LogHead | null>;
  /** How many events lie after `after` (of these types), counting at most `cap`. */
  countAfter(
    after: Position | undefined,
    eventTypes: readonly string[] | undefined,
    cap: number,
  ): Promise<number>;
  /**
   * The store's wake-ups without reading the log, where it has them (PostgreSQL: its appends and
   * LISTEN; listening starts with the first call). Without it a reader learns of appends from a
   * subscribeAll. A wake-up may come before the events are readable (docs/log.md): re-check soon.
   */
  wakeups?(): LogWakeups;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends ParleyError {
  override readonly name = 'WrongExpectedVersionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's revision when the append was refused; 'no_stream' when it does not exist. */
    readonly actual: bigint | 'no_stream',
  ) {
    super(
      'WRONG_EXPECTED_VERSION',
      500,
      `append to ${stream}: expected revision ${String(expected)}, stream is at ${String(actual)}`,
    );
  }
}

/** Some, but not all, of an append's event ids are already in the log. */
export class EventIdConflictError extends ParleyError {
  override readonly name = 'EventIdConflictError';
  constructor(
    readonly stream: string,
    readonly eventIds: string[],
  ) {
    super(
      'EVENT_ID_CONFLICT',
      500,
      `append to ${stream}: event ids already recorded elsewhere or in part: ${eventIds.join(', ')}`,
    );
  }
}
