export { deriveSessionRecordings } from './deriveSessionRecordings.js';
export { effectiveFileState, type StoredFileRef, sortedFiles, storedFiles } from './effectiveFileState.js';
export {
  AVAILABILITIES,
  type Availability,
  FILE_FAILURE_REASONS,
  type FileFailureReason,
  GONE_REASONS,
  type GoneReason,
  RETRYABLE_REASONS,
  SESSION_RECORDING_STATUSES,
  type SessionRecordingStatus,
  UNAVAILABLE_REASONS,
  type UnavailableReason,
  URL_KINDS,
  type UrlKind,
} from './reasons.js';
export {
  type DeriveSessionRecordingsInput,
  type FileState,
  fileKey,
  type IssuedUrl,
  type RecordingChannel,
  type RecordingDto,
  type RecordingFileDto,
  type RecordingFileRecord,
  type RecordingPhase,
  type RecordingRecord,
  type RecordingsData,
  type SessionRecordingContext,
} from './types.js';
