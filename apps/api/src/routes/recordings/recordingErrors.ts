import { HttpError } from '@parley/http';

/**
 * The recordings API's own errors (spec 000 §7), all in the standard envelope. The tenant-gating
 * code is not named by the spec: RECORDING_FEATURE_DISABLED (docs/api.md, Decisions).
 */
export const recordingFeatureDisabled = () =>
  new HttpError('RECORDING_FEATURE_DISABLED', 403, 'Call recording is not enabled for this tenant');

export const invalidSessionId = () =>
  new HttpError('INVALID_SESSION_ID', 400, 'sessionId must be 1 to 256 characters');

export const invalidRecordingRequest = () =>
  new HttpError('INVALID_PUBLIC_RECORDING_REQUEST', 400, 'disposition must be inline or attachment (once)');

export const sessionNotFound = () => new HttpError('SESSION_NOT_FOUND', 404, 'Session not found');

export const recordingQueryLimitExceeded = (limit: number) =>
  new HttpError('RECORDING_QUERY_LIMIT_EXCEEDED', 413, `The session has more than ${limit} recordings`);

export const recordingObjectLimitExceeded = (limit: number) =>
  new HttpError(
    'RECORDING_OBJECT_LIMIT_EXCEEDED',
    413,
    `The session's recordings hold more than ${limit} stored files`,
  );

/** 503: the message is hidden by the error mapper anyway; the code tells the caller to retry. */
export const recordingSettingsUnavailable = (cause?: unknown) =>
  new HttpError('RECORDING_SETTINGS_UNAVAILABLE', 503, 'Project recording settings unavailable', { cause });

/** The media route answers every failure alike, so a guessed or stale URL learns nothing. */
export const mediaNotFound = () => new HttpError('NOT_FOUND', 404, 'Media not found');
