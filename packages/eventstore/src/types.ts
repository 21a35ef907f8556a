/**
 * The EventStore port (DESIGN.md "The log store"). Two adapters implement it,
 * PostgreSQL (the default) and EventStoreDB, and both pass the contract suite
 * in ./testing/contract.ts.
 */

/**
 * A place in the whole log. Totally ordered: compare with comparePositions.
 * PostgreSQL: commit = the appending transaction's id (xid8), prepare = the
 * event's sequence number. EventStoreDB: its own commit/prepare positions.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** Metadata every Parley event carries; adapters store it as-is. */
export interface EventMetadata {
  tenantId?: string;
  projectId?: string;
  correlationId?: string;
  causationId?: string;
  [key: string]: unknown;
}

export interface EventToAppend {
  /**
   * UUID. Appending a batch whose ids are all already in the stream is a no-op that returns the
   * first append's result (a retry). Ids are unique per stream; the PostgreSQL adapter also refuses
   * an id recorded in another stream (EventIdConflictError), EventStoreDB cannot tell.
   */
  eventId: string;
  type: string;
  /** Version of the event type's schema this data was written with. Default 1. */
  schemaVersion?: number;
  data: Record<string, unknown>;
  metadata?: EventMetadata;
}

export interface RecordedEvent {
  eventId: string;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  stream: string;
  /** 0-based revision inside its stream. */
  revision: bigint;
  position: Position;
  recordedAt: Date;
}

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
 * A function that turns a stored event of an older schema version into the
 * current one. It may change type, schemaVersion, data and metadata; it must
 * keep eventId, stream, revision and position (readers checkpoint on them).
 */
export type Upcast = (event: RecordedEvent) => RecordedEvent;

export interface EventStore {
  append(stream: string, events: readonly EventToAppend[], options?: AppendOptions): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>;
  /** One batch in log order, strictly after `after`. */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catch-up, then live, in log order; never skips an event that commits late. */
  subscribeAll(options?: SubscribeAllOptions): AsyncIterable<RecordedEvent>;
  /** The last event of the log (or null when it is empty). */
  head(): Promise<LogHead | null>;
  /** How many events lie after `after` (of these types), counting at most `cap`. */
  countAfter(
    after: Position | undefined,
    eventTypes: readonly string[] | undefined,
    cap: number,
  ): Promise<number>;
  close(): Promise<void>;
}

export class WrongExpectedVersionError extends Error {
  override readonly name = 'WrongExpectedVersionError';
  readonly code = 'WRONG_EXPECTED_VERSION';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's revision when the append was refused; 'no_stream' when it does not exist. */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`append to ${stream}: expected revision ${String(expected)}, stream is at ${String(actual)}`);
  }
}

/** Some, but not all, of an append's event ids are already in the log. */
export class EventIdConflictError extends Error {
  override readonly name = 'EventIdConflictError';
  readonly code = 'EVENT_ID_CONFLICT';
  constructor(
    readonly stream: string,
    readonly eventIds: string[],
  ) {
    super(`append to ${stream}: event ids already recorded elsewhere or in part: ${eventIds.join(', ')}`);
  }
}

export const START: Position = Object.freeze({ commit: 0n, prepare: 0n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

/** `commit/prepare`, the form positions take in checkpoints, logs and the CLI. */
export function formatPosition(p: Position): string {
  return `${p.commit}/${p.prepare}`;
}

export function parsePosition(text: string): Position {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`not a log position: ${JSON.stringify(text)} (expected commit/prepare)`);
  return { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) };
}
