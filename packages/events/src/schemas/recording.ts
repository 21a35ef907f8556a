import { z } from 'zod';
import { defineEvent } from '../defineEvent.js';
import { amountSchema, countSchema, idSchema, principalSchema, timestampSchema } from './common.js';

/**
 * Events of the stream `recording-<recordingId>`: one call recording and its files (spec 000
 * §2.1). Availability, status and retryable of the recordings API are derived by its projection
 * from these facts and from SessionEnded; they are not stored here. No event holds a media URL
 * (URLs are bearer secrets, issued per request).
 */

const recordingScope = {
  recordingId: idSchema,
  sessionId: idSchema,
  projectId: idSchema,
};

/** Which side of the call a file holds. */
export const RECORDING_CHANNELS = ['caller', 'agent', 'mixed'] as const;

/**
 * UnavailableReason values (spec 000 §2.1) that are recorded as a failure. The others are not
 * failures: call_in_progress and media_in_progress are derived, url_signing_failed happens per
 * request, recording_disabled means no recording exists, and retention_expired and deleted have
 * their own events. All four are final (retryable false).
 */
export const RECORDING_FAILURE_REASONS = [
  'media_not_available',
  'auth_failed',
  'storage_write_failed',
  'media_object_missing',
] as const;

export const recordingStartedSchema = z.object({
  ...recordingScope,
  tenantId: idSchema.optional(),
  /** Telephony call identifier. */
  callId: idSchema,
  startedAt: timestampSchema,
  /** From the retention policy in force when recording started; absent: kept until deleted. */
  retentionExpiresAt: timestampSchema.optional(),
});
export type RecordingStartedData = z.infer<typeof recordingStartedSchema>;
export const recordingStarted = defineEvent({
  type: 'RecordingStarted',
  schemaVersion: 1,
  schema: recordingStartedSchema,
});

/**
 * Where the media of one file comes from. `recording_server`: the telephony provider's recording
 * server, fetched by the worker with the account's credentials (the URL itself grants nothing
 * without them). `external`: a customer-owned URL, passed through to API callers as `external`.
 */
export const recordingFileSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('recording_server'), url: z.url({ protocol: /^https?$/ }) }),
  z.object({ kind: z.literal('external'), url: z.url({ protocol: /^https?$/ }) }),
]);
export type RecordingFileSource = z.infer<typeof recordingFileSourceSchema>;

/** A file the completed recording holds, before it is stored. */
export const recordingFileSpecSchema = z.object({
  /** Position of the file inside the recording. */
  objectIndex: countSchema,
  fileName: z.string().min(1).max(512).optional(),
  channel: z.enum(RECORDING_CHANNELS).optional(),
  recordingType: z.string().min(1).max(128).optional(),
  contentType: z.string().min(1).max(128).optional(),
  recordingStartTime: timestampSchema.optional(),
  recordingEndTime: timestampSchema.optional(),
  source: recordingFileSourceSchema,
});
export type RecordingFileSpec = z.infer<typeof recordingFileSpecSchema>;

/**
 * The recording server finished the recording (telephony status `completed`, or the ingest
 * item): its files are now to be fetched into media storage (recording_server sources) or passed
 * through (external). Until each file is stored or failed it is `media_in_progress`.
 */
export const recordingCompletedSchema = z.object({
  ...recordingScope,
  callId: idSchema,
  durationSeconds: amountSchema.optional(),
  files: z.array(recordingFileSpecSchema).min(1).max(64),
  completedAt: timestampSchema,
});
export type RecordingCompletedData = z.infer<typeof recordingCompletedSchema>;
export const recordingCompleted = defineEvent({
  type: 'RecordingCompleted',
  schemaVersion: 1,
  schema: recordingCompletedSchema,
});

/** One file of the recording is in media storage. */
export const recordingFileStoredSchema = z.object({
  ...recordingScope,
  callId: idSchema,
  /** Position of the file inside the recording. */
  objectIndex: countSchema,
  fileName: z.string().min(1).optional(),
  channel: z.enum(RECORDING_CHANNELS).optional(),
  recordingType: z.string().min(1).optional(),
  contentType: z.string().min(1).optional(),
  bytes: countSchema,
  recordingStartTime: timestampSchema.optional(),
  recordingEndTime: timestampSchema.optional(),
  /** Object key in media storage (filesystem path or S3 key), never a URL. */
  storageKey: z.string().min(1),
  /** The recording's durationSeconds is the longest of its files'. */
  durationSeconds: amountSchema.optional(),
  storedAt: timestampSchema,
});
export type RecordingFileStoredData = z.infer<typeof recordingFileStoredSchema>;
export const recordingFileStored = defineEvent({
  type: 'RecordingFileStored',
  schemaVersion: 1,
  schema: recordingFileStoredSchema,
});

export const recordingFailedSchema = z.object({
  ...recordingScope,
  callId: idSchema.optional(),
  /** The file that failed; absent when the recording failed as a whole (no file could be fetched). */
  objectIndex: countSchema.optional(),
  reason: z.enum(RECORDING_FAILURE_REASONS),
  /** A diagnostic code from the recording server or storage; never a URL or credential. */
  detail: z.string().min(1).max(512).optional(),
  failedAt: timestampSchema,
});
export type RecordingFailedData = z.infer<typeof recordingFailedSchema>;
export const recordingFailed = defineEvent({
  type: 'RecordingFailed',
  schemaVersion: 1,
  schema: recordingFailedSchema,
});

export const recordingDeletedSchema = z.object({
  ...recordingScope,
  principal: principalSchema,
  reason: z.string().min(1).max(512).optional(),
  deletedAt: timestampSchema,
});
export type RecordingDeletedData = z.infer<typeof recordingDeletedSchema>;
export const recordingDeleted = defineEvent({
  type: 'RecordingDeleted',
  schemaVersion: 1,
  schema: recordingDeletedSchema,
});

export const recordingRetentionExpiredSchema = z.object({
  ...recordingScope,
  expiredAt: timestampSchema,
});
export type RecordingRetentionExpiredData = z.infer<typeof recordingRetentionExpiredSchema>;
export const recordingRetentionExpired = defineEvent({
  type: 'RecordingRetentionExpired',
  schemaVersion: 1,
  schema: recordingRetentionExpiredSchema,
});

/**
 * Media objects of the recording were removed from media storage (after RecordingRetentionExpired
 * or RecordingDeleted). Kept apart from those facts because deleting objects can fail and be
 * retried; this records that it happened, and which objects.
 */
export const recordingMediaDeletedSchema = z.object({
  ...recordingScope,
  objectIndexes: z.array(countSchema),
  cause: z.enum(['retention_expired', 'deleted']),
  deletedAt: timestampSchema,
});
export type RecordingMediaDeletedData = z.infer<typeof recordingMediaDeletedSchema>;
export const recordingMediaDeleted = defineEvent({
  type: 'RecordingMediaDeleted',
  schemaVersion: 1,
  schema: recordingMediaDeletedSchema,
});

/**
 * Legal holds are identified so that several can overlap: a recording is immutable while any hold
 * placed on it has not been lifted.
 */
const legalHoldFields = {
  ...recordingScope,
  holdId: idSchema,
  principal: principalSchema,
  /** Case reference or note; no personal data. */
  reason: z.string().min(1).max(512).optional(),
};

export const recordingLegalHoldPlacedSchema = z.object({ ...legalHoldFields, placedAt: timestampSchema });
export type RecordingLegalHoldPlacedData = z.infer<typeof recordingLegalHoldPlacedSchema>;
export const recordingLegalHoldPlaced = defineEvent({
  type: 'RecordingLegalHoldPlaced',
  schemaVersion: 1,
  schema: recordingLegalHoldPlacedSchema,
});

export const recordingLegalHoldLiftedSchema = z.object({ ...legalHoldFields, liftedAt: timestampSchema });
export type RecordingLegalHoldLiftedData = z.infer<typeof recordingLegalHoldLiftedSchema>;
export const recordingLegalHoldLifted = defineEvent({
  type: 'RecordingLegalHoldLifted',
  schemaVersion: 1,
  schema: recordingLegalHoldLiftedSchema,
});
