import { recordingStream, toAppend } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { MediaStorage } from '@parley/media';
import type { Logger, Pool } from '@parley/platform';
import {
  listRecordingsDueForRetention,
  listRecordingsWithMediaToDelete,
} from '@parley/projection-recordings';
import { workerEventId } from './eventIds.js';

export interface RetentionSweepDeps {
  pool: Pool;
  store: EventStore;
  media: MediaStorage;
  logger: Logger;
  now?: () => Date;
  /** Recordings handled per step of a sweep. */
  batchSize?: number;
}

export interface RetentionSweepResult {
  /** RecordingRetentionExpired appended (or found already appended). */
  expired: number;
  /** Recordings whose media objects were deleted (RecordingMediaDeleted). */
  mediaDeleted: number;
}

/**
 * One retention sweep, from the recordings projection:
 * 1. every recording whose retentionExpiresAt has passed and that is not under legal hold gets
 *    RecordingRetentionExpired;
 * 2. every retention-expired or deleted recording with stored media not yet deleted has its
 *    objects deleted from media storage, then gets RecordingMediaDeleted (the objects named).
 * A recording under legal hold (immutable) is skipped by both steps. Event ids are derived from
 * the recording (and the objects), so sweeps on several workers or after a crash append each
 * fact once. Step 2 sees step 1's facts once the projection has applied them (the next sweep).
 */
export async function runRetentionSweep(deps: RetentionSweepDeps): Promise<RetentionSweepResult> {
  const now = (deps.now ?? (() => new Date()))();
  const limit = deps.batchSize ?? 500;
  let expired = 0;
  for (const record of await listRecordingsDueForRetention(deps.pool, now, limit)) {
    if (record.immutable) continue;
    const data = {
      recordingId: record.recordingId,
      sessionId: record.sessionId,
      projectId: record.projectId,
      expiredAt: now.toISOString(),
    };
    await deps.store.append(recordingStream(record.recordingId), [
      toAppend(
        'RecordingRetentionExpired',
        data,
        { projectId: record.projectId },
        workerEventId('retention', record.projectId, `${record.recordingId}:retention_expired`),
      ),
    ]);
    expired++;
  }

  let mediaDeleted = 0;
  for (const { record, storageKeys, cause } of await listRecordingsWithMediaToDelete(deps.pool, limit)) {
    if (record.immutable || storageKeys.length === 0) continue;
    try {
      for (const { storageKey } of storageKeys) await deps.media.delete(storageKey);
    } catch (err) {
      // Left for the next sweep: the fact is appended only once every object is gone.
      deps.logger.warn({ err, recordingId: record.recordingId }, 'deleting recording media failed');
      continue;
    }
    const objectIndexes = storageKeys.map((k) => k.objectIndex).sort((a, b) => a - b);
    await deps.store.append(recordingStream(record.recordingId), [
      toAppend(
        'RecordingMediaDeleted',
        {
          recordingId: record.recordingId,
          sessionId: record.sessionId,
          projectId: record.projectId,
          objectIndexes,
          cause,
          deletedAt: now.toISOString(),
        },
        { projectId: record.projectId },
        workerEventId(
          'retention',
          record.projectId,
          `${record.recordingId}:media_deleted:${cause}:${objectIndexes.join(',')}`,
        ),
      ),
    ]);
    mediaDeleted++;
  }
  if (expired + mediaDeleted > 0) deps.logger.info({ expired, mediaDeleted }, 'recording retention sweep');
  return { expired, mediaDeleted };
}
