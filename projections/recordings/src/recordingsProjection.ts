import { defineProjection, type RowOf } from '@parley/projection-runner';
import { parsedEvent } from './recordedEvent.js';
import { addFact, type RecordingFacts } from './recordingFacts.js';
import { recordingFromFacts } from './recordingFromFacts.js';

/**
 * Call recordings (spec 000 §2.1): one row per recording in `recordings`, and in
 * `recording_sessions` what each session's own events say (known, ended, its recording setting),
 * which the recordings API needs for sessions without any recording. Every column of a recording
 * is computed from `facts`, a commutative merge of its events, so that any order of a recording's
 * events gives the same row (the fetcher, the callback and the sweep append independently).
 */
const least = (a: string | undefined, b: string): string => (a !== undefined && a < b ? a : b);

export const recordingsProjection = defineProjection({
  name: 'recordings',
  version: 1,
  eventTypes: [
    'SessionStarted',
    'SessionEnded',
    'RecordingStarted',
    'RecordingCompleted',
    'RecordingFileStored',
    'RecordingFailed',
    'RecordingDeleted',
    'RecordingRetentionExpired',
    'RecordingMediaDeleted',
    'RecordingLegalHoldPlaced',
    'RecordingLegalHoldLifted',
  ],
  tables: {
    recordings: {
      columns: {
        project_id: 'text',
        recording_id: 'text',
        session_id: 'text',
        call_id: 'text',
        created_at: 'timestamptz',
        /** started | completed | failed | retention_expired | deleted */
        phase: 'text',
        failure_reason: { type: 'text', nullable: true },
        immutable: 'boolean',
        retention_expires_at: { type: 'timestamptz', nullable: true },
        duration_seconds: { type: 'double precision', nullable: true },
        /** RecordingFileRecord[] in objectIndex order. */
        files: 'jsonb',
        /** Gone while some stored object's media is not yet deleted: the sweep's work list. */
        media_to_delete: 'boolean',
        /** RecordingFacts: what every event said, merged order-free. */
        facts: 'jsonb',
      },
      primaryKey: ['project_id', 'recording_id'],
      indexes: [
        { columns: ['project_id', 'session_id', 'created_at', 'recording_id'] },
        { columns: ['retention_expires_at'] },
        { columns: ['media_to_delete'] },
      ],
    },
    recording_sessions: {
      columns: {
        project_id: 'text',
        session_id: 'text',
        started: 'boolean',
        ended: 'boolean',
        /** The session's own setting; null when it has none (the project's decides). */
        recording_enabled: { type: 'boolean', nullable: true },
      },
      primaryKey: ['project_id', 'session_id'],
    },
  },
  handlers: {
    recordings: {
      keys: (event) => {
        const parsed = parsedEvent(event);
        if (parsed?.kind !== 'recording') return [];
        return [{ project_id: parsed.event.data.projectId, recording_id: parsed.event.data.recordingId }];
      },
      evolve: (row, event) => {
        const parsed = parsedEvent(event);
        if (parsed?.kind !== 'recording') return row;
        const facts = addFact((row?.facts as RecordingFacts | undefined) ?? null, parsed.event);
        const derived = recordingFromFacts(facts);
        return {
          project_id: parsed.event.data.projectId,
          recording_id: parsed.event.data.recordingId,
          // A recording's events all name the same session; the least one keeps the fold order-free.
          session_id: least(row?.session_id, parsed.event.data.sessionId),
          call_id: derived.callId,
          created_at: new Date(derived.createdAt),
          phase: derived.phase,
          failure_reason: derived.failureReason,
          immutable: derived.immutable,
          retention_expires_at:
            derived.retentionExpiresAt === null ? null : new Date(derived.retentionExpiresAt),
          duration_seconds: derived.durationSeconds,
          files: derived.files,
          media_to_delete: derived.mediaToDelete,
          facts,
        };
      },
    },
    recording_sessions: {
      keys: (event) => {
        const parsed = parsedEvent(event);
        if (parsed?.kind !== 'session') return [];
        return [{ project_id: parsed.event.projectId, session_id: parsed.event.sessionId }];
      },
      evolve: (row, event) => {
        const parsed = parsedEvent(event);
        if (parsed?.kind !== 'session') return row;
        const current = row ?? {
          project_id: parsed.event.projectId,
          session_id: parsed.event.sessionId,
          started: false,
          ended: false,
          recording_enabled: null,
        };
        if (parsed.event.type === 'SessionEnded') return { ...current, ended: true };
        const setting = parsed.event.recordingEnabled;
        // Off wins whichever SessionStarted came first, so the order of a repeated start is moot.
        const recording_enabled =
          setting === undefined
            ? current.recording_enabled
            : current.recording_enabled === false
              ? false
              : setting;
        return { ...current, started: true, recording_enabled };
      },
    },
  },
});

export type RecordingRow = RowOf<typeof recordingsProjection.tables.recordings>;
export type RecordingSessionRow = RowOf<typeof recordingsProjection.tables.recording_sessions>;
