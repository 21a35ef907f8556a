import { effectiveFileState, sortedFiles } from './effectiveFileState.js';
import {
  type Availability,
  RETRYABLE_REASONS,
  type SessionRecordingStatus,
  type UnavailableReason,
} from './reasons.js';
import {
  type DeriveSessionRecordingsInput,
  fileKey,
  type IssuedUrl,
  type RecordingDto,
  type RecordingFileDto,
  type RecordingRecord,
  type RecordingsData,
  type SessionRecordingContext,
} from './types.js';

/** A URL, or why there is none: one file, or a recording that has no files yet. */
type Outcome =
  | { kind: 'url'; url: string; urlKind: RecordingFileDto['urlKind'] & string; expiresIn: number | null }
  | { kind: 'none'; availability: Exclude<Availability, 'available'>; reason: UnavailableReason };

const waiting = (context: SessionRecordingContext): Outcome => ({
  kind: 'none',
  availability: 'media_in_progress',
  reason: context.sessionEnded ? 'media_in_progress' : 'call_in_progress',
});

const unavailable = (reason: UnavailableReason): Outcome => ({
  kind: 'none',
  availability: 'unavailable',
  reason,
});

/** A platform-issued URL must have a lifetime of at least one whole second; external URLs have none. */
function fromIssued(issued: IssuedUrl | undefined): Outcome {
  if (issued === undefined) return unavailable('url_signing_failed');
  if ('failure' in issued) return unavailable(issued.failure);
  if (issued.urlKind === 'external') {
    return { kind: 'url', url: issued.url, urlKind: 'external', expiresIn: null };
  }
  const expiresIn = issued.expiresIn === null ? 0 : Math.floor(issued.expiresIn);
  if (!(expiresIn >= 1)) return unavailable('url_signing_failed');
  return { kind: 'url', url: issued.url, urlKind: issued.urlKind, expiresIn };
}

function fileOutcome(
  record: RecordingRecord,
  file: RecordingRecord['files'][number],
  input: DeriveSessionRecordingsInput,
): Outcome {
  const state = effectiveFileState(record, file);
  switch (state.kind) {
    case 'pending':
      return waiting(input.context);
    case 'stored':
      return fromIssued(input.issued.get(fileKey(record.recordingId, file.objectIndex)));
    case 'external': {
      // The route may report a failure for it; otherwise the customer's URL is passed through.
      const issued = input.issued.get(fileKey(record.recordingId, file.objectIndex));
      if (issued !== undefined && 'failure' in issued) return unavailable(issued.failure);
      return { kind: 'url', url: state.url, urlKind: 'external', expiresIn: null };
    }
    case 'failed':
    case 'gone':
      return unavailable(state.reason);
    default: {
      const never: never = state;
      throw new Error(`unknown file state ${JSON.stringify(never)}`);
    }
  }
}

/** What a recording without files says in place of its files' outcomes. */
function recordingOutcome(record: RecordingRecord, context: SessionRecordingContext): Outcome {
  switch (record.phase) {
    case 'deleted':
    case 'retention_expired':
      return unavailable(record.phase);
    case 'failed':
      return unavailable(record.failureReason ?? 'media_not_available');
    case 'started':
    case 'completed':
      return waiting(context);
    default: {
      const never: never = record.phase;
      throw new Error(`unknown recording phase ${JSON.stringify(never)}`);
    }
  }
}

function toFileDto(
  recordingId: string,
  file: RecordingRecord['files'][number],
  outcome: Outcome,
): RecordingFileDto {
  const withUrl = outcome.kind === 'url';
  return {
    recordingId,
    objectIndex: file.objectIndex,
    fileName: file.fileName,
    channel: file.channel,
    recordingType: file.recordingType,
    bytes: withUrl ? file.bytes : 0,
    recordingStartTime: file.recordingStartTime,
    recordingEndTime: file.recordingEndTime,
    availability: withUrl ? 'available' : outcome.availability,
    url: withUrl ? outcome.url : null,
    urlKind: withUrl ? outcome.urlKind : null,
    expiresIn: withUrl ? outcome.expiresIn : null,
    unavailableReason: withUrl ? null : outcome.reason,
    retryable: withUrl ? false : RETRYABLE_REASONS.has(outcome.reason),
  };
}

/** The outcomes that decide a recording: its files', or the recording's own when it has none. */
function toRecordingDto(
  record: RecordingRecord,
  input: DeriveSessionRecordingsInput,
): { dto: RecordingDto; outcomes: Outcome[] } {
  const files = sortedFiles(record);
  const fileOutcomes = files.map((file) => fileOutcome(record, file, input));
  const outcomes = files.length === 0 ? [recordingOutcome(record, input.context)] : fileOutcomes;
  const anyUrl = outcomes.some((o) => o.kind === 'url');
  const firstMissing = outcomes.find((o) => o.kind === 'none');
  const availability: Availability = anyUrl
    ? 'available'
    : outcomes.some((o) => o.kind === 'none' && o.availability === 'media_in_progress')
      ? 'media_in_progress'
      : 'unavailable';
  return {
    outcomes,
    dto: {
      recordingId: record.recordingId,
      callId: record.callId,
      availability,
      unavailableReason: !anyUrl && firstMissing?.kind === 'none' ? firstMissing.reason : null,
      retryable: outcomes.some((o) => o.kind === 'none' && RETRYABLE_REASONS.has(o.reason)),
      durationSeconds: record.durationSeconds,
      immutable: record.immutable,
      createdAt: record.createdAt,
      retentionExpiresAt: record.retentionExpiresAt,
      files: files.map((file, i) => toFileDto(record.recordingId, file, fileOutcomes[i] as Outcome)),
    },
  };
}

/** §3 when the session has recordings: over every file (a recording without files counts as one). */
function statusOf(outcomes: readonly Outcome[]): SessionRecordingStatus {
  const withUrl = outcomes.filter((o) => o.kind === 'url').length;
  if (withUrl > 0) return withUrl === outcomes.length ? 'success' : 'partial';
  const reasons = outcomes.flatMap((o) => (o.kind === 'none' ? [o.reason] : []));
  if (reasons.includes('call_in_progress')) return 'call_in_progress';
  if (reasons.includes('media_in_progress')) return 'media_in_progress';
  return 'media_unavailable';
}

/** Why a session has no recording at all (§3: call_in_progress, recording_disabled or media_not_available). */
function emptyReason(context: SessionRecordingContext): UnavailableReason {
  if (!context.recordingEnabled) return 'recording_disabled';
  return context.sessionEnded ? 'media_not_available' : 'call_in_progress';
}

/**
 * The exact `data` of spec 000 §2.1 for a session's recordings, with the status rules of §3. Pure:
 * the URLs were issued by the caller (`issued`, keyed by `fileKey`); a stored file with no entry
 * there is reported as url_signing_failed. Recordings are answered in the order given.
 */
export function deriveSessionRecordings(input: DeriveSessionRecordingsInput): RecordingsData {
  if (input.recordings.length === 0) {
    const reason = emptyReason(input.context);
    return {
      sessionId: input.sessionId,
      projectId: input.projectId,
      status: reason === 'call_in_progress' ? 'call_in_progress' : 'media_unavailable',
      unavailableReason: reason,
      retryable: RETRYABLE_REASONS.has(reason),
      recordings: [],
    };
  }
  const derived = input.recordings.map((record) => toRecordingDto(record, input));
  const outcomes = derived.flatMap((d) => d.outcomes);
  return {
    sessionId: input.sessionId,
    projectId: input.projectId,
    status: statusOf(outcomes),
    unavailableReason: null,
    retryable: derived.some((d) => d.dto.retryable),
    recordings: derived.map((d) => d.dto),
  };
}
