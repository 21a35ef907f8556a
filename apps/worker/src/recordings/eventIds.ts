import { deriveEventId } from '@parley/ingest';

/**
 * Event ids of the worker's recording facts: version-8 UUIDs of what they are about, so a job or
 * sweep that runs again (after a crash, a retry or on another worker) appends nothing new.
 */
export const workerEventId = (kind: 'media-fetch' | 'retention', projectId: string, key: string): string =>
  deriveEventId(`${kind}:${projectId}`, key);

/** One outcome per file, stored or failed, whichever is appended first: both use this id. */
export const fileOutcomeEventId = (projectId: string, recordingId: string, objectIndex: number) =>
  workerEventId('media-fetch', projectId, `${recordingId}:${objectIndex}:outcome`);

/** The id of the media fetch job of one file (pg-boss job ids are UUIDs). */
export const fetchJobId = (projectId: string, recordingId: string, objectIndex: number) =>
  workerEventId('media-fetch', projectId, `${recordingId}:${objectIndex}:job`);
