import type { EventToAppend } from '@parley/eventstore';
import type { VerifyApiKey } from '@parley/http';
import type { MediaStorage, MediaTokenStore } from '@parley/media';
import type { RecordingFileRecord, RecordingRecord } from '@parley/recordings';

/** What the projection knows of a session's recordings (@parley/projection-recordings loadSessionRecordings). */
export interface SessionRecordings {
  sessionKnown: boolean;
  sessionEnded: boolean;
  sessionRecordingEnabled: boolean | null;
  recordings: RecordingRecord[];
}

export interface RecordingsRouteOptions {
  verify: VerifyApiKey;
  /** The tenant's `callRecording` feature switch (spec 000 §7 tenant gating). */
  callRecordingEnabled(tenantId: string): Promise<boolean>;
  /**
   * The project's raw `settings.recording` (undefined when unset). Throws when the settings cannot
   * be read; the route also answers 503 RECORDING_SETTINGS_UNAVAILABLE when they are malformed.
   */
  recordingSettings(projectId: string): Promise<unknown>;
  loadSessionRecordings(projectId: string, sessionId: string, limit: number): Promise<SessionRecordings>;
  loadRecordingFile(
    projectId: string,
    recordingId: string,
    objectIndex: number,
  ): Promise<{ record: RecordingRecord; file: RecordingFileRecord } | null>;
  storage: MediaStorage;
  tokens: MediaTokenStore;
  /** Appends to the log: audit records, and RecordingFailed when a stored object is found missing. */
  append(stream: string, events: readonly EventToAppend[]): Promise<unknown>;
  /** RECORDING_PUBLIC_MEDIA_URL_TTL_SECONDS (a project's mediaUrlTtlSeconds overrides it; both capped at 3600). */
  mediaUrlTtlSeconds: number;
  /** RECORDING_PUBLIC_RECORDING_OBJECT_LIMIT (a project's objectLimit overrides it). */
  objectLimit: number;
  now?: () => Date;
}
