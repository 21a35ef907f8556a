import { ParleyError } from '@parley/platform/errors';
import type { Queryable } from './append.js';

/** The log holds transaction ids this cluster has not reached: a logical restore into a new cluster. */
export class LogAheadOfClusterError extends ParleyError {
  override readonly name = 'LogAheadOfClusterError';
  constructor(
    readonly storedTransactionId: bigint,
    readonly clusterNextTransactionId: bigint,
  ) {
    const epoch = (storedTransactionId >> 32n) + 1n;
    super(
      'LOG_AHEAD_OF_CLUSTER',
      500,
      `the event log holds transaction id ${storedTransactionId} but this PostgreSQL cluster is only at ` +
        `${clusterNextTransactionId}: the log was copied logically (pg_dump/pg_restore, COPY) into another ` +
        'cluster. New events would sort before events readers have already passed, and they would never ' +
        'see them, so Parley refuses to start. Remedy: stop PostgreSQL and move its transaction id epoch ' +
        `past the log with \`pg_resetwal --epoch=${epoch} -D <data directory>\`, then start it again ` +
        '(the embedded PostgreSQL keeps its data directory in .parley/pg); or restore from a physical ' +
        'backup (pg_basebackup, a volume snapshot), which keeps transaction ids. See docs/log.md.',
    );
  }
}

/**
 * Throws LogAheadOfClusterError when the newest transaction id in the log is
 * not older than the cluster's next one. Cheap (one backwards index probe);
 * the PostgreSQL store runs it once before its first operation.
 */
export async function assertLogNotAhead(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ stored: string | null; next: string }>(
    `select (select e.transaction_id::text from events e order by e.transaction_id desc limit 1) as stored,
       pg_snapshot_xmax(pg_current_snapshot())::text as next`,
  );
  const row = rows[0];
  if (!row || row.stored === null) return;
  const stored = BigInt(row.stored);
  const next = BigInt(row.next);
  if (stored >= next) throw new LogAheadOfClusterError(stored, next);
}
