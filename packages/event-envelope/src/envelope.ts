import type { Position } from './position.js';

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

/**
 * A function that turns a stored event of an older schema version into the
 * current one. It may change type, schemaVersion, data and metadata; it must
 * keep eventId, stream, revision and position (readers checkpoint on them).
 */
export type Upcast = (event: RecordedEvent) => RecordedEvent;
