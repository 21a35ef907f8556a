import { comparePositions, type RecordedEvent } from '@parley/eventstore';
import type { PoolClient } from '@parley/platform';
import { type ApplyResult, type ApplyTarget, changeCounts } from './applyTarget.js';
import { casStatement, loadedRows, loadQuery, textKey, writeSteps } from './batchStatements.js';
import { copyRows } from './copyRows.js';
import type { CompiledTable, Projection } from './defineProjection.js';
import { CheckpointConflictError, isDataError, ProjectionHandlerError } from './errors.js';
import { type BatchPlan, foldBatch, type LoadedRows, planBatch } from './fold.js';
import type { WrittenKeys } from './writtenKeys.js';

export type { ApplyResult, ApplyTarget } from './applyTarget.js';

/**
 * Applies one batch inside the caller's open transaction on `client`:
 * compare-and-set of the checkpoint first (so a second writer waits on the
 * registry row and then fails, before doing any work), then one load query,
 * one upsert and one delete per table. Throws CheckpointConflictError or
 * ProjectionHandlerError; the caller rolls back.
 */
export async function applyBatch(
  client: PoolClient,
  projection: Projection,
  target: ApplyTarget,
  events: readonly RecordedEvent[],
  /** planBatch of these events, made ahead (a rebuild plans the next batch while this one writes). */
  planned?: BatchPlan,
): Promise<ApplyResult> {
  const plan =
    planned && comparePositions(planned.after, target.checkpoint) === 0
      ? planned
      : planBatch(projection, events, target.checkpoint);
  const unchanged = { checkpoint: target.checkpoint, applied: 0, upserted: 0, deleted: 0 };
  if (comparePositions(plan.checkpoint, target.checkpoint) === 0) return unchanged;

  const cas = casStatement(projection, target, plan);
  const updated = await client.query(cas.text, [...cas.values]);
  if (updated.rowCount !== 1) throw new CheckpointConflictError(projection.name, target.generation);
  if (plan.events.length === 0) return { ...unchanged, checkpoint: plan.checkpoint };

  const loaded: LoadedRows[] = [];
  for (const planned of plan.tables) {
    const load = async () => {
      const query = loadQuery(planned, target.generation, target.written);
      const rows = query ? (await client.query(query.statement.text, [...query.statement.values])).rows : [];
      return loadedRows(planned.table, query, rows);
    };
    loaded.push(await guard(projection, planned.table, load));
  }
  const changes = foldBatch(projection, plan, loaded);
  for (const change of changes) {
    for (const step of writeSteps(change, target.generation, true)) {
      await guard(projection, step.table, async () => {
        if (step.kind === 'copy') await copyRows(client, step.physical, step.table, step.text);
        else await client.query(step.statement.text, [...step.statement.values]);
      });
    }
  }
  if (target.written) rememberKeys(target.written, plan, loaded);
  return { checkpoint: plan.checkpoint, applied: plan.events.length, ...changeCounts(changes) };
}

/**
 * Every key a batch touched may now have a row (a superset of the rows written costs only lookups),
 * in its canonical form: a later batch may spell the same text key as a string where this one had
 * a number.
 */
function rememberKeys(written: WrittenKeys, plan: BatchPlan, loaded: readonly LoadedRows[]): void {
  plan.tables.forEach((planned, t) => {
    if (!textKey(planned.table)) return;
    const filter = written.of(planned.table.logical);
    const canonical = loaded[t]?.canonical;
    for (const key of planned.keys.keys()) filter.add(canonical?.get(key) ?? key);
  });
}

/** A value PostgreSQL refuses (a data error) is the handler's: ProjectionHandlerError on `table`. */
export async function guard<T>(
  projection: Projection,
  table: CompiledTable,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isDataError(err))
      throw new ProjectionHandlerError(projection.name, table.logical, 'write', undefined, err);
    throw err;
  }
}
