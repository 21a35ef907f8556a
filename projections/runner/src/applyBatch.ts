import { comparePositions, type Position, type RecordedEvent } from '@parley/eventstore';
import type { PoolClient } from '@parley/platform';
import { COPY_MIN_ROWS, copyRows, encodeCopyRows } from './copyRows.js';
import { physicalTable } from './ddl.js';
import {
  type CompiledTable,
  type Projection,
  ROLLUP_COUNT_COLUMN,
  type Row,
  type StoredTable,
} from './defineProjection.js';
import { CheckpointConflictError, isDataError, ProjectionHandlerError } from './errors.js';
import {
  type BatchPlan,
  foldBatch,
  keyString,
  type LoadedRow,
  type LoadedRows,
  type PlannedTable,
  planBatch,
  type RollupDelta,
  type TableChanges,
  toJson,
} from './fold.js';
import type { WrittenKeys } from './writtenKeys.js';

export interface ApplyTarget {
  readonly generation: number;
  /** The status the generation must still have: a swap retires a live one under its writer's feet. */
  readonly status: 'live' | 'building';
  /** The checkpoint this batch was read after. */
  readonly checkpoint: Position;
  /**
   * Only for a generation whose every row the caller wrote (a rebuild that started it empty and
   * holds its writer lock): the keys written so far. Text keys it has never seen are not loaded.
   */
  readonly written?: WrittenKeys;
}

export interface ApplyResult {
  readonly checkpoint: Position;
  /** Events folded (after the checkpoint, of the projection's types). */
  readonly applied: number;
  readonly upserted: number;
  readonly deleted: number;
}

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

  const last = plan.events.at(-1);
  const cas = await client.query(
    `update projection_generations
        set checkpoint_commit = $3::bigint, checkpoint_prepare = $4::bigint,
            events_processed = events_processed + $5::bigint,
            last_event_recorded_at = coalesce($6::timestamptz, last_event_recorded_at),
            error = null, error_event_id = null, error_event_type = null, failed_at = null,
            updated_at = now()
      where name = $1 and generation = $2 and status = $7
        and checkpoint_commit = $8::bigint and checkpoint_prepare = $9::bigint`,
    [
      projection.name,
      target.generation,
      plan.checkpoint.commit.toString(),
      plan.checkpoint.prepare.toString(),
      plan.events.length,
      last?.recordedAt ?? null,
      target.status,
      target.checkpoint.commit.toString(),
      target.checkpoint.prepare.toString(),
    ],
  );
  if (cas.rowCount !== 1) throw new CheckpointConflictError(projection.name, target.generation);
  if (plan.events.length === 0) return { ...unchanged, checkpoint: plan.checkpoint };

  const loaded: LoadedRows[] = [];
  for (const planned of plan.tables) {
    const load = () => loadRows(client, planned, target.generation, target.written);
    loaded.push(await guard(projection, planned.table, load));
  }
  const changes = foldBatch(projection, plan, loaded);
  let upserted = 0;
  let deleted = 0;
  for (const change of changes) {
    await guard(projection, change.table, () => writeChanges(client, change, target.generation));
    upserted += change.inserts.length + change.upserts.length;
    deleted += change.deletes.length;
  }
  if (target.written) rememberKeys(target.written, plan, loaded);
  return { checkpoint: plan.checkpoint, applied: plan.events.length, upserted, deleted };
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

async function guard<T>(projection: Projection, table: CompiledTable, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isDataError(err))
      throw new ProjectionHandlerError(projection.name, table.logical, 'write', undefined, err);
    throw err;
  }
}

const q = (ident: string): string => `"${ident}"`;

const recordsetColumns = (table: StoredTable, names: readonly string[]): string =>
  names.map((n) => `${q(n)} ${table.columns.find((c) => c.name === n)?.type ?? 'text'}`).join(', ');

/**
 * Primary keys whose every column is text: PostgreSQL keeps a string key exactly as given, so a
 * handler's key (when it is a string) is already canonical and only the rows that exist need to
 * come back.
 */
const textKey = (table: CompiledTable): boolean =>
  table.primaryKey.every((c) => table.columns.find((col) => col.name === c)?.type === 'text');

/** Text key columns and string values: each handler key string is the row's canonical key. */
const exactKeys = (planned: PlannedTable): boolean => planned.allStrings && textKey(planned.table);

/**
 * One query for every key of the batch: each handler key comes back with its
 * canonical form (as PostgreSQL parsed it: 'ABC…' and 'abc…' are the same
 * uuid) and the row, if any, so that equal keys fold into one row. With a text
 * key only existing rows come back (an inner join): in a rebuild most keys are
 * new, and a row of nulls per key was most of the load's cost.
 */
async function loadRows(
  client: PoolClient,
  planned: PlannedTable,
  generation: number,
  written: WrittenKeys | undefined,
): Promise<LoadedRows> {
  const { table } = planned;
  const canonical = new Map<string, string>();
  const rows = new Map<string, LoadedRow>();
  const exact = exactKeys(planned);
  const filter = exact ? written?.of(table.logical) : undefined;
  const handlerKeys = filter
    ? [...planned.keys.keys()].filter((k) => filter.mayHave(k))
    : [...planned.keys.keys()];
  if (handlerKeys.length === 0) return { canonical, rows };
  const input = handlerKeys.map((k, i) => ({ ...planned.keys.get(k), __k: i }));
  const pk = table.primaryKey;
  const join = exact ? 'join' : 'left join';
  const sql = `select k.__k, ${pk.map((c, i) => `k.${q(c)} as __p${i}`).join(', ')},
      ${table.columns.map((c) => `t.${q(c.name)}`).join(', ')}
    from json_to_recordset($1::json) as k(__k integer, ${recordsetColumns(table, pk)})
    ${join} ${q(physicalTable(table.logical, generation))} t on ${pk.map((c) => `t.${q(c)} = k.${q(c)}`).join(' and ')}`;
  const result = await client.query<Row & { __k: number }>(sql, [toJson(input)]);
  for (const r of result.rows) {
    const handlerKey = handlerKeys[r.__k];
    if (handlerKey === undefined) continue;
    const key: Row = {};
    pk.forEach((c, i) => {
      key[c] = r[`__p${i}`];
    });
    const canon = keyString(table, key);
    canonical.set(handlerKey, canon);
    if (rows.has(canon)) continue;
    const found = r[pk[0] as string] !== null;
    let row: Row | undefined;
    if (found) {
      row = {};
      for (const c of table.columns) row[c.name] = r[c.name];
    }
    rows.set(canon, { key, row });
  }
  return { canonical, rows };
}

async function writeChanges(client: PoolClient, change: TableChanges, generation: number): Promise<void> {
  const { table } = change;
  const physical = q(physicalTable(table.logical, generation));
  const pk = table.primaryKey;
  const names = table.columns.map((c) => c.name);
  const columns = names.map(q).join(', ');
  const fromJson = `select ${columns} from json_to_recordset($1::json) as r(${recordsetColumns(table, names)})`;
  // Rows the load did not find cannot be there at write time: this batch's transaction holds the
  // generation's checkpoint row (the compare-and-set), so no other writer can add them. A plain
  // insert skips the speculative insertion of an upsert (about a fifth of a rebuild's write time),
  // and COPY the JSON (when there are rows enough to pay for its second round trip).
  if (change.inserts.length > 0) {
    const text = change.inserts.length >= COPY_MIN_ROWS ? encodeCopyRows(table, change.inserts) : undefined;
    if (text !== undefined) await copyRows(client, physical, table, text);
    else await client.query(`insert into ${physical} (${columns}) ${fromJson}`, [toJson(change.inserts)]);
  }
  if (change.upserts.length > 0) {
    const rest = names.filter((n) => !pk.includes(n));
    const onConflict =
      rest.length === 0
        ? `on conflict (${pk.map(q).join(', ')}) do nothing`
        : `on conflict (${pk.map(q).join(', ')}) do update set ${rest.map((n) => `${q(n)} = excluded.${q(n)}`).join(', ')}`;
    await client.query(`insert into ${physical} (${columns}) ${fromJson} ${onConflict}`, [
      toJson(change.upserts),
    ]);
  }
  if (change.deletes.length > 0) {
    await client.query(
      `delete from ${physical} t using json_to_recordset($1::json) as k(${recordsetColumns(table, pk)})
        where ${pk.map((c) => `t.${q(c)} = k.${q(c)}`).join(' and ')}`,
      [toJson(change.deletes)],
    );
  }
  for (const [r, rollup] of table.rollups.entries()) {
    const deltas = change.rollupDeltas[r] ?? [];
    if (deltas.length > 0) await writeRollup(client, rollup.table, deltas, generation);
  }
}

/**
 * Adds the batch's count deltas to a rollup: one upsert, groups already merged (an upsert may not
 * touch a row twice). When a count went down, a second statement deletes the groups it brought to
 * 0, so a rollup holds only groups that count something.
 */
async function writeRollup(
  client: PoolClient,
  table: StoredTable,
  deltas: readonly RollupDelta[],
  generation: number,
): Promise<void> {
  const physical = q(physicalTable(table.logical, generation));
  const pk = table.primaryKey;
  const names = table.columns.map((c) => c.name);
  const n = q(ROLLUP_COUNT_COLUMN);
  await client.query(
    `insert into ${physical} as t (${names.map(q).join(', ')})
     select ${names.map(q).join(', ')} from json_to_recordset($1::json) as r(${recordsetColumns(table, names)})
     on conflict (${pk.map(q).join(', ')}) do update set ${n} = t.${n} + excluded.${n}`,
    [toJson(deltas.map((d) => ({ ...d.group, [ROLLUP_COUNT_COLUMN]: d.n })))],
  );
  const lowered = deltas.filter((d) => d.n < 0).map((d) => d.group);
  if (lowered.length === 0) return;
  await client.query(
    `delete from ${physical} t using json_to_recordset($1::json) as k(${recordsetColumns(table, pk)})
      where t.${n} = 0 and ${pk.map((c) => `t.${q(c)} = k.${q(c)}`).join(' and ')}`,
    [toJson(lowered)],
  );
}
