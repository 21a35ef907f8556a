import { comparePositions, type RecordedEvent } from '@parley/eventstore';
import { type Pool, type PoolClient, withTransaction } from '@parley/platform';
import { applyBatch } from './applyBatch.js';
import { type ApplyResult, type ApplyTarget, changeCounts } from './applyTarget.js';
import { casStatement, type LoadQuery, loadedRows, loadQuery, writeSteps } from './batchStatements.js';
import { copyRows } from './copyRows.js';
import type { Projection } from './defineProjection.js';
import { CheckpointConflictError, isDataError } from './errors.js';
import { type BatchPlan, foldBatch, planBatch } from './fold.js';
import { inlineStatements } from './inlineStatements.js';

/**
 * One batch of a live generation in its own transaction, as applyBatch inside withTransaction
 * would apply it, in two round trips instead of one per statement (about a dozen for
 * session-summaries): `begin`, the checkpoint's compare-and-set and every table's load in one
 * simple query; then every write and `commit` in another (COPY, for many new rows, before it in
 * round trips of its own). Statements of one simple query run in order, each seeing the ones
 * before it, and stop at the first error, which aborts the transaction: the writes, the
 * compare-and-set and the order are applyBatch's.
 *
 * A value PostgreSQL refuses fails the whole round trip, without saying which table's: the batch is
 * then rolled back and applied again by applyBatch, statement by statement, which names the table
 * (ProjectionHandlerError) exactly as before.
 */
export async function applyLiveBatch(
  pool: Pool,
  projection: Projection,
  target: ApplyTarget,
  events: readonly RecordedEvent[],
): Promise<ApplyResult> {
  const plan = planBatch(projection, events, target.checkpoint);
  if (comparePositions(plan.checkpoint, target.checkpoint) === 0)
    return { checkpoint: target.checkpoint, applied: 0, upserted: 0, deleted: 0 };
  const client = await pool.connect();
  let outcome: ApplyResult | 'refused';
  try {
    outcome = await applyInRoundTrips(client, projection, target, plan);
  } catch (err) {
    await client.query('rollback').catch(() => {});
    if (!isDataError(err)) throw err;
    outcome = 'refused';
  } finally {
    client.release();
  }
  if (outcome !== 'refused') return outcome;
  return withTransaction(pool, (c) => applyBatch(c, projection, target, events, plan));
}

interface StatementResult {
  readonly rowCount: number | null;
  readonly rows: Record<string, unknown>[];
}

async function applyInRoundTrips(
  client: PoolClient,
  projection: Projection,
  target: ApplyTarget,
  plan: BatchPlan,
): Promise<ApplyResult> {
  const loads: (LoadQuery | null)[] =
    plan.events.length === 0 ? [] : plan.tables.map((p) => loadQuery(p, target.generation, undefined));
  const first = [
    'begin',
    casStatement(projection, target, plan),
    ...loads.flatMap((l) => (l ? [l.statement] : [])),
  ];
  // A simple query of several statements answers with one result per statement.
  const results = (await client.query(inlineStatements(first))) as unknown as StatementResult[];
  if (results[1]?.rowCount !== 1) throw new CheckpointConflictError(projection.name, target.generation);
  if (plan.events.length === 0) {
    await client.query('commit');
    return { checkpoint: plan.checkpoint, applied: 0, upserted: 0, deleted: 0 };
  }
  let next = 2;
  const loaded = plan.tables.map((planned, t) => {
    const query = loads[t] ?? null;
    const rows = query ? (results[next++]?.rows ?? []) : [];
    return loadedRows(planned.table, query, rows);
  });
  const changes = foldBatch(projection, plan, loaded);
  const steps = changes.flatMap((change) => writeSteps(change, target.generation, true));
  for (const step of steps)
    if (step.kind === 'copy') await copyRows(client, step.physical, step.table, step.text);
  await client.query(
    inlineStatements([...steps.flatMap((s) => (s.kind === 'sql' ? [s.statement] : [])), 'commit']),
  );
  return { checkpoint: plan.checkpoint, applied: plan.events.length, ...changeCounts(changes) };
}
