import type {
  Availability,
  FileFailureReason,
  GoneReason,
  SessionRecordingStatus,
  UnavailableReason,
  UrlKind,
} from './reasons.js';

/** What the read model knows of one file. Never a URL the platform issues (those are per request). */
export type FileState =
  /** Listed by RecordingCompleted; being fetched into media storage. */
  | { kind: 'pending' }
  | { kind: 'stored'; storageKey: string }
  /** A customer-owned URL, passed through as is. */
  | { kind: 'external'; url: string }
  | { kind: 'failed'; reason: FileFailureReason }
  | { kind: 'gone'; reason: GoneReason };

export type RecordingChannel = 'caller' | 'agent' | 'mixed';

export interface RecordingFileRecord {
  objectIndex: number;
  fileName: string | null;
  channel: RecordingChannel | null;
  recordingType: string | null;
  contentType: string | null;
  /** Bytes stored; 0 until stored. */
  bytes: number;
  recordingStartTime: string | null;
  recordingEndTime: string | null;
  state: FileState;
}

export type RecordingPhase = 'started' | 'completed' | 'failed' | 'retention_expired' | 'deleted';

export interface RecordingRecord {
  recordingId: string;
  callId: string;
  sessionId: string;
  projectId: string;
  /** ISO 8601 (UTC). */
  createdAt: string;
  durationSeconds: number | null;
  /** Under at least one legal hold that has not been lifted. */
  immutable: boolean;
  retentionExpiresAt: string | null;
  /**
   * started: the call is being recorded (files not known yet); completed: files listed; failed:
   * the recording as a whole failed (failureReason); retention_expired; deleted.
   */
  phase: RecordingPhase;
  failureReason: FileFailureReason | null;
  /** Ordered by objectIndex. */
  files: RecordingFileRecord[];
}

export interface SessionRecordingContext {
  sessionEnded: boolean;
  /** The session's AND the project's recording setting. */
  recordingEnabled: boolean;
}

/** The outcome of issuing a URL for one stored or external file in this request (the API route's job). */
export type IssuedUrl =
  | { url: string; urlKind: UrlKind; expiresIn: number | null }
  | { failure: 'url_signing_failed' | 'media_object_missing' };

/** Key of `issued`: one file of one recording. */
export const fileKey = (recordingId: string, objectIndex: number): string => `${recordingId}:${objectIndex}`;

/** RecordingFile of spec 000 §2.1, fields in the spec's order. */
export interface RecordingFileDto {
  recordingId: string;
  objectIndex: number;
  fileName: string | null;
  channel: RecordingChannel | null;
  recordingType: string | null;
  bytes: number;
  recordingStartTime: string | null;
  recordingEndTime: string | null;
  availability: Availability;
  url: string | null;
  urlKind: UrlKind | null;
  expiresIn: number | null;
  unavailableReason: UnavailableReason | null;
  retryable: boolean;
}

/** Recording of spec 000 §2.1, fields in the spec's order. */
export interface RecordingDto {
  recordingId: string;
  callId: string;
  availability: Availability;
  unavailableReason: UnavailableReason | null;
  retryable: boolean;
  durationSeconds: number | null;
  immutable: boolean;
  createdAt: string;
  retentionExpiresAt: string | null;
  files: RecordingFileDto[];
}

/** `data` of the recordings response (spec 000 §2.1), fields in the spec's order. */
export interface RecordingsData {
  sessionId: string;
  projectId: string;
  status: SessionRecordingStatus;
  unavailableReason: UnavailableReason | null;
  retryable: boolean;
  recordings: RecordingDto[];
}

export interface DeriveSessionRecordingsInput {
  sessionId: string;
  projectId: string;
  context: SessionRecordingContext;
  recordings: readonly RecordingRecord[];
  issued: ReadonlyMap<string, IssuedUrl>;
}
