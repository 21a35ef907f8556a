import { type Pool, readSnapshot } from '@parley/platform';
import type { RecordingRecord } from '@parley/recordings';
import { RECORD_COLUMNS, type RecordRow, toRecordingRecord } from './recordingRecord.js';

export interface SessionRecordings {
  /** The session's own events or a recording name it. False with no recordings: 404 SESSION_NOT_FOUND. */
  sessionKnown: boolean;
  /** SessionEnded was recorded. */
  sessionEnded: boolean;
  /** The session's own recording setting; null when it has none (or its start is not known). */
  sessionRecordingEnabled: boolean | null;
  /** At most `limit`, ordered by createdAt, then recordingId. */
  recordings: RecordingRecord[];
}

/**
 * A session's recordings and what its own events say, read in one snapshot. The API passes
 * limit 65 so that more than 64 recordings can be told apart (413 RECORDING_QUERY_LIMIT_EXCEEDED).
 */
export async function loadSessionRecordings(
  pool: Pool,
  projectId: string,
  sessionId: string,
  limit: number,
): Promise<SessionRecordings> {
  const { session, rows } = await readSnapshot(pool, async (client) => ({
    session: await client.query<{ started: boolean; ended: boolean; recording_enabled: boolean | null }>(
      'select started, ended, recording_enabled from recording_sessions where project_id = $1 and session_id = $2',
      [projectId, sessionId],
    ),
    rows: await client.query<RecordRow>(
      `select ${RECORD_COLUMNS} from recordings where project_id = $1 and session_id = $2
        order by created_at, recording_id limit $3`,
      [projectId, sessionId, limit],
    ),
  }));
  const own = session.rows[0];
  return {
    sessionKnown: own !== undefined || rows.rows.length > 0,
    sessionEnded: own?.ended ?? false,
    sessionRecordingEnabled: own?.recording_enabled ?? null,
    recordings: rows.rows.map(toRecordingRecord),
  };
}
