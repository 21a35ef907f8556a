/** Availability of a recording or a file (spec 000 §2.1). */
export const AVAILABILITIES = ['available', 'media_in_progress', 'unavailable'] as const;
export type Availability = (typeof AVAILABILITIES)[number];

/** UnavailableReason values of spec 000 §2.1, in the spec's order. */
export const UNAVAILABLE_REASONS = [
  'call_in_progress',
  'media_in_progress',
  'url_signing_failed',
  'recording_disabled',
  'media_not_available',
  'auth_failed',
  'storage_write_failed',
  'media_object_missing',
  'retention_expired',
  'deleted',
] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

/** The reasons after which a later call can produce a URL; every other reason is final. */
export const RETRYABLE_REASONS: ReadonlySet<UnavailableReason> = new Set<UnavailableReason>([
  'call_in_progress',
  'media_in_progress',
  'url_signing_failed',
]);

/** Session-level `data.status` values (spec 000 §3). */
export const SESSION_RECORDING_STATUSES = [
  'success',
  'partial',
  'media_in_progress',
  'call_in_progress',
  'media_unavailable',
] as const;
export type SessionRecordingStatus = (typeof SESSION_RECORDING_STATUSES)[number];

export const URL_KINDS = ['signed', 'proxied', 'external'] as const;
export type UrlKind = (typeof URL_KINDS)[number];

/** Failures recorded by RecordingFailed (the `reason` of that event). */
export const FILE_FAILURE_REASONS = [
  'media_not_available',
  'auth_failed',
  'storage_write_failed',
  'media_object_missing',
] as const;
export type FileFailureReason = (typeof FILE_FAILURE_REASONS)[number];

export const GONE_REASONS = ['retention_expired', 'deleted'] as const;
export type GoneReason = (typeof GONE_REASONS)[number];
