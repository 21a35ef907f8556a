import type { Pool, PoolClient } from '@parley/platform';

/** Whether the traces read model knows the session (a start, a trace event or a call of it). */
export async function sessionKnown(
  q: PoolClient | Pool,
  projectId: string,
  sessionId: string,
): Promise<boolean> {
  const { rows } = await q.query('select 1 from trace_sessions where project_id = $1 and session_id = $2', [
    projectId,
    sessionId,
  ]);
  return rows.length > 0;
}
