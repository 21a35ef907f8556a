import {
  ANY,
  type AppendExpectedRevision,
  type Position as EsdbPosition,
  type RecordedEvent as EsdbRecordedEvent,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
  type EventData,
  jsonEvent,
  NO_STREAM,
  STREAM_EXISTS,
} from '@eventstore/db-client';
import {
  type EventMetadata,
  type EventToAppend,
  type ExpectedRevision,
  type Position,
  type RecordedEvent,
  WrongExpectedVersionError,
} from '../types.js';

/**
 * Metadata key that carries Parley's schemaVersion. EventStoreDB has no field for it, so it rides in the
 * event's metadata and is stripped again on read; the key is therefore reserved.
 */
export const SCHEMA_VERSION_KEY = '$schemaVersion';

export function toEsdbExpectedRevision(expected: ExpectedRevision | undefined): AppendExpectedRevision {
  if (expected === undefined) return ANY;
  if (typeof expected === 'bigint') {
    if (expected < 0n) throw new RangeError(`expected revision must be >= 0, got ${expected}`);
    return expected;
  }
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default: {
      const unknown: never = expected;
      throw new TypeError(`unknown expected revision: ${String(unknown)}`);
    }
  }
}

/** Copies, so that no caller holds on to the client's objects. */
export function fromEsdbPosition(position: EsdbPosition): Position {
  return { commit: position.commit, prepare: position.prepare };
}

export function toEsdbPosition(position: Position): EsdbPosition {
  return { commit: position.commit, prepare: position.prepare };
}

export function toStoredMetadata(
  metadata: EventMetadata | undefined,
  schemaVersion = 1,
): Record<string, unknown> {
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1) {
    throw new RangeError(`schemaVersion must be a positive integer, got ${schemaVersion}`);
  }
  return { ...metadata, [SCHEMA_VERSION_KEY]: schemaVersion };
}

/** Events written by other tools may carry no metadata, or metadata that is not a JSON object. */
export function fromStoredMetadata(stored: unknown): { metadata: EventMetadata; schemaVersion: number } {
  if (!isPlainObject(stored)) return { metadata: {}, schemaVersion: 1 };
  const { [SCHEMA_VERSION_KEY]: version, ...metadata } = stored;
  const schemaVersion =
    typeof version === 'number' && Number.isInteger(version) && version >= 1 ? version : 1;
  return { metadata, schemaVersion };
}

export function toEventData(event: EventToAppend): EventData {
  return jsonEvent({
    id: event.eventId,
    type: event.type,
    data: event.data,
    metadata: toStoredMetadata(event.metadata, event.schemaVersion),
  });
}

/**
 * System records: `$`-typed events (`$>` links, `$metadata`, `$statsCollected`, ...) and anything in a
 * `$` stream. Parley never writes either.
 */
export function isSystemEvent(event: { type: string; streamId: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** What readAll, countAfter and subscribeAll pass on: user events, of the asked types when given. */
export function isWanted(
  event: { type: string; streamId: string },
  eventTypes?: ReadonlySet<string>,
): boolean {
  return !isSystemEvent(event) && (eventTypes === undefined || eventTypes.has(event.type));
}

/** A .NET regular expression (the server's filter engine) matching exactly these event types. */
export function eventTypesRegex(eventTypes: readonly string[]): string {
  const escaped = eventTypes.map((type) => type.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`));
  return `^(?:${escaped.join('|')})$`;
}

/**
 * Reads of one stream return a position only from server 22.6 on; before that the resolved event's commit
 * position is all there is (commit and prepare coincide for ordinary appends).
 */
export function positionOf(event: EsdbRecordedEvent, commitPosition?: bigint): Position {
  if (event.position) return fromEsdbPosition(event.position);
  if (commitPosition !== undefined) return { commit: commitPosition, prepare: commitPosition };
  throw new Error(
    `event ${event.id} in ${event.streamId} has no log position (EventStoreDB 22.6+ is required)`,
  );
}

export function toRecordedEvent(event: EsdbRecordedEvent, commitPosition?: bigint): RecordedEvent {
  const { metadata, schemaVersion } = fromStoredMetadata(event.metadata);
  return {
    eventId: event.id,
    type: event.type,
    schemaVersion,
    data: toDataRecord(event),
    metadata,
    stream: event.streamId,
    revision: event.revision,
    position: positionOf(event, commitPosition),
    recordedAt: event.created,
  };
}

/**
 * Parley writes JSON objects only; payloads written by other tools (binary, or JSON that is not an object)
 * are wrapped so that `data` stays a record.
 */
function toDataRecord(event: EsdbRecordedEvent): Record<string, unknown> {
  if (event.data instanceof Uint8Array) return { base64: Buffer.from(event.data).toString('base64') };
  if (isPlainObject(event.data)) return event.data;
  return { value: event.data };
}

/** The client reports a missing stream as -1 on some paths and as 'no_stream' on others. */
export function toActualRevision(current: bigint | 'no_stream'): bigint | 'no_stream' {
  return current === 'no_stream' || current < 0n ? 'no_stream' : current;
}

export function isEsdbWrongExpectedVersion(err: unknown): err is EsdbWrongExpectedVersionError {
  return err instanceof EsdbWrongExpectedVersionError;
}

export function toWrongExpectedVersionError(
  err: EsdbWrongExpectedVersionError,
  stream: string,
  expected: ExpectedRevision,
): WrongExpectedVersionError {
  const mapped = new WrongExpectedVersionError(stream, expected, toActualRevision(err.actualVersion));
  mapped.cause = err;
  return mapped;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
