import type { ParleyEvent } from '@parley/events';
import type { FileFailureReason, GoneReason, RecordingChannel } from '@parley/recordings';

/**
 * Everything a recording's events have said, merged so that the order they are folded in does not
 * matter: each slot keeps the greatest of the facts offered for it (by their own timestamp, then by
 * their canonical JSON), and sets are unions. The row's other columns are computed from this alone
 * (recordingFromFacts), so every order of the same events gives the same row, and a replayed event
 * changes nothing. Stored as jsonb; it holds no URL except a customer's external one.
 */
export interface RecordingFacts {
  /** Earliest timestamp of any event seen: createdAt when RecordingStarted is missing. */
  earliestAt: string;
  started: StartedFact | null;
  completed: CompletedFact | null;
  /** objectIndex → RecordingFileStored. */
  stored: Record<string, StoredFact>;
  /** objectIndex → RecordingFailed of that file; `*` → of the whole recording. */
  failed: Record<string, FailedFact>;
  deleted: { deletedAt: string } | null;
  retentionExpired: { expiredAt: string } | null;
  /** objectIndex → the cause its media was deleted for. */
  mediaDeleted: Record<string, GoneReason>;
  /** holdId → which of its events were seen; held while placed and not lifted. */
  holds: Record<string, { placed: boolean; lifted: boolean }>;
}

export interface StartedFact {
  callId: string;
  startedAt: string;
  retentionExpiresAt?: string;
}

export interface FileMeta {
  fileName?: string;
  channel?: RecordingChannel;
  recordingType?: string;
  contentType?: string;
  recordingStartTime?: string;
  recordingEndTime?: string;
}

export interface CompletedFileFact extends FileMeta {
  objectIndex: number;
  /** Only an external source's URL is kept: recording-server URLs are the fetcher's business. */
  source: { kind: 'recording_server' } | { kind: 'external'; url: string };
}

export interface CompletedFact {
  callId: string;
  durationSeconds?: number;
  files: CompletedFileFact[];
  completedAt: string;
}

export interface StoredFact extends FileMeta {
  callId: string;
  bytes: number;
  storageKey: string;
  durationSeconds?: number;
  storedAt: string;
}

export interface FailedFact {
  callId?: string;
  reason: FileFailureReason;
  failedAt: string;
}

export const WHOLE_RECORDING = '*';

export type RecordingEvent = Extract<
  ParleyEvent,
  {
    type:
      | 'RecordingStarted'
      | 'RecordingCompleted'
      | 'RecordingFileStored'
      | 'RecordingFailed'
      | 'RecordingDeleted'
      | 'RecordingRetentionExpired'
      | 'RecordingMediaDeleted'
      | 'RecordingLegalHoldPlaced'
      | 'RecordingLegalHoldLifted';
  }
>;

/** JSON with object keys sorted: jsonb does not keep key order, so comparisons use this. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const ms = (iso: string): number => Date.parse(iso);

/** The greater of two facts: later timestamp first, then canonical JSON; commutative. */
function greater<T>(a: T | null | undefined, b: T, at: (fact: T) => string): T {
  if (a === null || a === undefined) return b;
  const d = ms(at(a)) - ms(at(b));
  if (d !== 0) return d > 0 ? a : b;
  return canonicalJson(a) >= canonicalJson(b) ? a : b;
}

const earlier = (a: string, b: string): string => {
  const d = ms(a) - ms(b);
  return d < 0 || (d === 0 && a <= b) ? a : b;
};

/** Copies only the keys that are set, so that in-memory facts equal what jsonb gives back. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export function emptyFacts(at: string): RecordingFacts {
  return {
    earliestAt: at,
    started: null,
    completed: null,
    stored: {},
    failed: {},
    deleted: null,
    retentionExpired: null,
    mediaDeleted: {},
    holds: {},
  };
}

function eventTime(event: RecordingEvent): string {
  switch (event.type) {
    case 'RecordingStarted':
      return event.data.startedAt;
    case 'RecordingCompleted':
      return event.data.completedAt;
    case 'RecordingFileStored':
      return event.data.storedAt;
    case 'RecordingFailed':
      return event.data.failedAt;
    case 'RecordingDeleted':
      return event.data.deletedAt;
    case 'RecordingRetentionExpired':
      return event.data.expiredAt;
    case 'RecordingMediaDeleted':
      return event.data.deletedAt;
    case 'RecordingLegalHoldPlaced':
      return event.data.placedAt;
    case 'RecordingLegalHoldLifted':
      return event.data.liftedAt;
    default: {
      const never: never = event;
      throw new Error(`unknown recording event ${JSON.stringify(never)}`);
    }
  }
}

/** The facts after one more event. Pure; commutative and idempotent over events. */
export function addFact(current: RecordingFacts | null, event: RecordingEvent): RecordingFacts {
  const at = eventTime(event);
  const base = current ?? emptyFacts(at);
  const facts: RecordingFacts = { ...base, earliestAt: earlier(base.earliestAt, at) };
  switch (event.type) {
    case 'RecordingStarted': {
      const d = event.data;
      const fact = defined<StartedFact>({
        callId: d.callId,
        startedAt: d.startedAt,
        retentionExpiresAt: d.retentionExpiresAt,
      });
      facts.started = greater(base.started, fact, (f) => f.startedAt);
      return facts;
    }
    case 'RecordingCompleted': {
      const d = event.data;
      const fact = defined<CompletedFact>({
        callId: d.callId,
        durationSeconds: d.durationSeconds,
        completedAt: d.completedAt,
        files: d.files.map((f) =>
          defined<CompletedFileFact>({
            objectIndex: f.objectIndex,
            fileName: f.fileName,
            channel: f.channel,
            recordingType: f.recordingType,
            contentType: f.contentType,
            recordingStartTime: f.recordingStartTime,
            recordingEndTime: f.recordingEndTime,
            source:
              f.source.kind === 'external'
                ? { kind: 'external', url: f.source.url }
                : { kind: 'recording_server' },
          }),
        ),
      });
      facts.completed = greater(base.completed, fact, (f) => f.completedAt);
      return facts;
    }
    case 'RecordingFileStored': {
      const d = event.data;
      const fact = defined<StoredFact>({
        callId: d.callId,
        fileName: d.fileName,
        channel: d.channel,
        recordingType: d.recordingType,
        contentType: d.contentType,
        bytes: d.bytes,
        recordingStartTime: d.recordingStartTime,
        recordingEndTime: d.recordingEndTime,
        storageKey: d.storageKey,
        durationSeconds: d.durationSeconds,
        storedAt: d.storedAt,
      });
      const key = String(d.objectIndex);
      facts.stored = { ...base.stored, [key]: greater(base.stored[key], fact, (f) => f.storedAt) };
      return facts;
    }
    case 'RecordingFailed': {
      const d = event.data;
      const fact = defined<FailedFact>({ callId: d.callId, reason: d.reason, failedAt: d.failedAt });
      const key = d.objectIndex === undefined ? WHOLE_RECORDING : String(d.objectIndex);
      facts.failed = { ...base.failed, [key]: greater(base.failed[key], fact, (f) => f.failedAt) };
      return facts;
    }
    case 'RecordingDeleted':
      facts.deleted = greater(base.deleted, { deletedAt: event.data.deletedAt }, (f) => f.deletedAt);
      return facts;
    case 'RecordingRetentionExpired':
      facts.retentionExpired = greater(
        base.retentionExpired,
        { expiredAt: event.data.expiredAt },
        (f) => f.expiredAt,
      );
      return facts;
    case 'RecordingMediaDeleted': {
      const mediaDeleted = { ...base.mediaDeleted };
      for (const index of event.data.objectIndexes) {
        const key = String(index);
        const seen = mediaDeleted[key];
        // Two causes for one object (rare): keep the greater name, whatever the order.
        mediaDeleted[key] = seen !== undefined && seen > event.data.cause ? seen : event.data.cause;
      }
      facts.mediaDeleted = mediaDeleted;
      return facts;
    }
    case 'RecordingLegalHoldPlaced':
    case 'RecordingLegalHoldLifted': {
      const hold = base.holds[event.data.holdId] ?? { placed: false, lifted: false };
      const next =
        event.type === 'RecordingLegalHoldPlaced' ? { ...hold, placed: true } : { ...hold, lifted: true };
      facts.holds = { ...base.holds, [event.data.holdId]: next };
      return facts;
    }
    default: {
      const never: never = event;
      throw new Error(`unknown recording event ${JSON.stringify(never)}`);
    }
  }
}
