import type { Pool } from '@parley/platform';
import type { RecordingFileRecord, RecordingRecord } from '@parley/recordings';
import { RECORD_COLUMNS, type RecordRow, toRecordingRecord } from './recordingRecord.js';

/** One file of one recording of the project (the proxied media route); null when either is unknown. */
export async function loadRecordingFile(
  pool: Pool,
  projectId: string,
  recordingId: string,
  objectIndex: number,
): Promise<{ record: RecordingRecord; file: RecordingFileRecord } | null> {
  const { rows } = await pool.query<RecordRow>(
    `select ${RECORD_COLUMNS} from recordings where project_id = $1 and recording_id = $2`,
    [projectId, recordingId],
  );
  const row = rows[0];
  if (!row) return null;
  const record = toRecordingRecord(row);
  const file = record.files.find((f) => f.objectIndex === objectIndex);
  return file ? { record, file } : null;
}
