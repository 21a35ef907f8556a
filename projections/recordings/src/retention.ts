import type { Pool } from '@parley/platform';
import type { GoneReason, RecordingRecord } from '@parley/recordings';
import type { RecordingFacts } from './recordingFacts.js';
import { goneCause, undeletedObjects } from './recordingFromFacts.js';
import { RECORD_COLUMNS, type RecordRow, toRecordingRecord } from './recordingRecord.js';

/**
 * Recordings whose retention has passed at `now` and that are neither under legal hold nor already
 * expired or deleted: the retention sweep appends RecordingRetentionExpired for each. Across
 * projects, earliest expiry first.
 */
export async function listRecordingsDueForRetention(
  pool: Pool,
  now: Date,
  limit: number,
): Promise<RecordingRecord[]> {
  const { rows } = await pool.query<RecordRow>(
    `select ${RECORD_COLUMNS} from recordings
      where retention_expires_at <= $1 and not immutable and phase not in ('retention_expired', 'deleted')
      order by retention_expires_at, project_id, recording_id limit $2`,
    [now, limit],
  );
  return rows.map(toRecordingRecord);
}

export interface MediaToDelete {
  record: RecordingRecord;
  /** Stored objects not yet reported deleted by RecordingMediaDeleted. */
  storageKeys: Array<{ objectIndex: number; storageKey: string }>;
  cause: GoneReason;
}

/**
 * Recordings that are retention-expired or deleted while some stored object's media has not been
 * deleted yet: the sweep deletes those objects and appends RecordingMediaDeleted.
 */
export async function listRecordingsWithMediaToDelete(pool: Pool, limit: number): Promise<MediaToDelete[]> {
  const { rows } = await pool.query<RecordRow & { facts: RecordingFacts }>(
    `select ${RECORD_COLUMNS}, facts from recordings where media_to_delete
      order by project_id, recording_id limit $1`,
    [limit],
  );
  return rows.flatMap((row) => {
    const cause = goneCause(row.facts);
    return cause === null
      ? []
      : [{ record: toRecordingRecord(row), storageKeys: undeletedObjects(row.facts), cause }];
  });
}
