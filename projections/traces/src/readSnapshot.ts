import type { Pool, PoolClient } from '@parley/platform';

/** Runs `read` in one repeatable-read, read-only snapshot, so that counts and rows agree. */
export async function readSnapshot<T>(pool: Pool, read: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const result = await read(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

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
