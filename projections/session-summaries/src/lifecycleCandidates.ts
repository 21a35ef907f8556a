import type { Pool, PoolClient } from '@parley/platform';
import { ACTIVE, IDLE } from './summaryRow.js';

/**
 * The sessions the worker's lifecycle sweep looks at (docs/sessions.md), read from the summaries'
 * view. A candidate only: the sweep decides from the session's own stream, so a summary that lags
 * the log costs a stream read, never a wrong transition.
 */
export interface LifecycleCandidate {
  projectId: string;
  sessionId: string;
  /** last_activity_at (open sessions) or ended_at (ended ones): with the ids, the keyset cursor. */
  at: Date;
}

export type LifecycleCursor = Pick<LifecycleCandidate, 'projectId' | 'sessionId' | 'at'>;

export interface OpenSessionsDueQuery {
  /** Active sessions with no activity after this go idle. */
  idleBefore: Date;
  /** Active or idle sessions with no activity after this are abandoned. */
  abandonBefore: Date;
  limit: number;
  after?: LifecycleCursor;
}

export interface EndedSessionsDueQuery {
  /** Ended sessions (any end state) that ended at or before this are archived. */
  archiveBefore: Date;
  limit: number;
  after?: LifecycleCursor;
}

interface CandidateRow {
  project_id: string;
  id: string;
  at: Date;
}

const toCandidate = (r: CandidateRow): LifecycleCandidate => ({
  projectId: r.project_id,
  sessionId: r.id,
  at: r.at,
});

const keyset = (column: string, after: LifecycleCursor | undefined, params: unknown[]): string => {
  if (!after) return '';
  params.push(after.at, after.projectId, after.sessionId);
  const n = params.length;
  return ` and (s.${column}, s.project_id, s.id) > ($${n - 2}, $${n - 1}, $${n})`;
};

/** Open (active or idle) sessions due to go idle or be abandoned, oldest activity first. */
export async function listOpenSessionsDue(
  db: Pool | PoolClient,
  query: OpenSessionsDueQuery,
): Promise<LifecycleCandidate[]> {
  const params: unknown[] = [ACTIVE, query.idleBefore, IDLE, query.abandonBefore];
  const after = keyset('last_activity_at', query.after, params);
  params.push(query.limit);
  const { rows } = await db.query<CandidateRow>(
    `select s.project_id, s.id, s.last_activity_at as at from session_summaries s
      where s.created_at is not null
        and ((s.status = $1 and s.last_activity_at <= $2) or (s.status = $3 and s.last_activity_at <= $4))${after}
      order by s.last_activity_at, s.project_id, s.id limit $${params.length}`,
    params,
  );
  return rows.map(toCandidate);
}

/** The states a SessionEnded records (spec 000 §3): the sessions the archive step looks at. */
const ENDED_STATES = ['ended', 'completed', 'escalated', 'abandoned', 'failed'];

/** Ended sessions due to be archived, earliest end first. */
export async function listEndedSessionsDue(
  db: Pool | PoolClient,
  query: EndedSessionsDueQuery,
): Promise<LifecycleCandidate[]> {
  const params: unknown[] = [ENDED_STATES, query.archiveBefore];
  const after = keyset('ended_at', query.after, params);
  params.push(query.limit);
  const { rows } = await db.query<CandidateRow>(
    `select s.project_id, s.id, s.ended_at as at from session_summaries s
      where s.created_at is not null and s.status = any($1::text[]) and s.ended_at <= $2${after}
      order by s.ended_at, s.project_id, s.id limit $${params.length}`,
    params,
  );
  return rows.map(toCandidate);
}
