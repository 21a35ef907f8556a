import type {
  FileFailureReason,
  RecordingFileRecord,
  RecordingPhase,
  RecordingRecord,
} from '@parley/recordings';

/** The columns a RecordingRecord is read from (never `facts`, except where storage keys are needed). */
export const RECORD_COLUMNS = [
  'project_id',
  'recording_id',
  'session_id',
  'call_id',
  'created_at',
  'phase',
  'failure_reason',
  'immutable',
  'retention_expires_at',
  'duration_seconds',
  'files',
].join(', ');

export interface RecordRow {
  project_id: string;
  recording_id: string;
  session_id: string;
  call_id: string;
  created_at: Date;
  phase: string;
  failure_reason: string | null;
  immutable: boolean;
  retention_expires_at: Date | null;
  duration_seconds: number | null;
  files: unknown;
}

export function toRecordingRecord(row: RecordRow): RecordingRecord {
  return {
    recordingId: row.recording_id,
    callId: row.call_id,
    sessionId: row.session_id,
    projectId: row.project_id,
    createdAt: row.created_at.toISOString(),
    durationSeconds: row.duration_seconds,
    immutable: row.immutable,
    retentionExpiresAt: row.retention_expires_at === null ? null : row.retention_expires_at.toISOString(),
    phase: row.phase as RecordingPhase,
    failureReason: row.failure_reason as FileFailureReason | null,
    files: row.files as RecordingFileRecord[],
  };
}
