import type { ApplyTarget } from './applyTarget.js';
import { COPY_MIN_ROWS, encodeCopyRows } from './copyRows.js';
import { physicalTable } from './ddl.js';
import {
  type CompiledTable,
  type Projection,
  ROLLUP_COUNT_COLUMN,
  type Row,
  type StoredTable,
} from './defineProjection.js';
import {
  type BatchPlan,
  keyString,
  type LoadedRow,
  type LoadedRows,
  type PlannedTable,
  type RollupDelta,
  type TableChanges,
  toJson,
} from './fold.js';
import type { WrittenKeys } from './writtenKeys.js';

/**
 * The statements of one batch (applyBatch.ts runs them one round trip each, applyLiveBatch.ts
 * several to a round trip): the checkpoint's compare-and-set, one load per table, then per table
 * the inserts, upserts, deletes and rollup counts.
 */
export interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** A write of one table's changes (attributed to that table when PostgreSQL refuses a value). */
export type WriteStep =
  | { readonly kind: 'sql'; readonly table: CompiledTable; readonly statement: Statement }
  | {
      readonly kind: 'copy';
      readonly table: CompiledTable;
      readonly physical: string;
      readonly text: string;
    };

const q = (ident: string): string => `"${ident}"`;

const recordsetColumns = (table: StoredTable, names: readonly string[]): string =>
  names.map((n) => `${q(n)} ${table.columns.find((c) => c.name === n)?.type ?? 'text'}`).join(', ');

/** The checkpoint moves from the target's to the plan's, or no row is updated (another writer, a swap). */
export function casStatement(projection: Projection, target: ApplyTarget, plan: BatchPlan): Statement {
  const last = plan.events.at(-1);
  return {
    text: `update projection_generations
        set checkpoint_commit = $3::bigint, checkpoint_prepare = $4::bigint,
            events_processed = events_processed + $5::bigint,
            last_event_recorded_at = coalesce($6::timestamptz, last_event_recorded_at),
            error = null, error_event_id = null, error_event_type = null, failed_at = null,
            updated_at = now()
      where name = $1 and generation = $2 and status = $7
        and checkpoint_commit = $8::bigint and checkpoint_prepare = $9::bigint`,
    values: [
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
  };
}

/**
 * Primary keys whose every column is text: PostgreSQL keeps a string key exactly as given, so a
 * handler's key (when it is a string) is already canonical and only the rows that exist need to
 * come back.
 */
export const textKey = (table: CompiledTable): boolean =>
  table.primaryKey.every((c) => table.columns.find((col) => col.name === c)?.type === 'text');

/** Text key columns and string values: each handler key string is the row's canonical key. */
const exactKeys = (planned: PlannedTable): boolean => planned.allStrings && textKey(planned.table);

export interface LoadQuery {
  readonly statement: Statement;
  /** The handler keys asked for, by the index each row comes back with (`__k`). */
  readonly handlerKeys: readonly string[];
}

/**
 * One query for every key of the batch: each handler key comes back with its
 * canonical form (as PostgreSQL parsed it: 'ABC…' and 'abc…' are the same
 * uuid) and the row, if any, so that equal keys fold into one row. With a text
 * key only existing rows come back (an inner join): in a rebuild most keys are
 * new, and a row of nulls per key was most of the load's cost. Null: nothing to load.
 */
export function loadQuery(
  planned: PlannedTable,
  generation: number,
  written: WrittenKeys | undefined,
): LoadQuery | null {
  const { table } = planned;
  const exact = exactKeys(planned);
  const filter = exact ? written?.of(table.logical) : undefined;
  const handlerKeys = filter
    ? [...planned.keys.keys()].filter((k) => filter.mayHave(k))
    : [...planned.keys.keys()];
  if (handlerKeys.length === 0) return null;
  const input = handlerKeys.map((k, i) => ({ ...planned.keys.get(k), __k: i }));
  const pk = table.primaryKey;
  const join = exact ? 'join' : 'left join';
  const text = `select k.__k, ${pk.map((c, i) => `k.${q(c)} as __p${i}`).join(', ')},
      ${table.columns.map((c) => `t.${q(c.name)}`).join(', ')}
    from json_to_recordset($1::json) as k(__k integer, ${recordsetColumns(table, pk)})
    ${join} ${q(physicalTable(table.logical, generation))} t on ${pk.map((c) => `t.${q(c)} = k.${q(c)}`).join(' and ')}`;
  return { statement: { text, values: [toJson(input)] }, handlerKeys };
}

/** What a load query's rows say: canonical keys and current rows. */
export function loadedRows(
  table: CompiledTable,
  query: LoadQuery | null,
  rows: readonly Record<string, unknown>[],
): LoadedRows {
  const canonical = new Map<string, string>();
  const loaded = new Map<string, LoadedRow>();
  if (query === null) return { canonical, rows: loaded };
  const pk = table.primaryKey;
  for (const r of rows) {
    const handlerKey = query.handlerKeys[r.__k as number];
    if (handlerKey === undefined) continue;
    const key: Row = {};
    pk.forEach((c, i) => {
      key[c] = r[`__p${i}`];
    });
    const canon = keyString(table, key);
    canonical.set(handlerKey, canon);
    if (loaded.has(canon)) continue;
    const found = r[pk[0] as string] !== null;
    let row: Row | undefined;
    if (found) {
      row = {};
      for (const c of table.columns) row[c.name] = r[c.name];
    }
    loaded.set(canon, { key, row });
  }
  return { canonical, rows: loaded };
}

/**
 * One table's writes, in order: inserts, upserts, deletes, then each rollup's counts. Rows the load
 * did not find cannot be there at write time: this batch's transaction holds the generation's
 * checkpoint row (the compare-and-set), so no other writer can add them. A plain insert skips the
 * speculative insertion of an upsert (about a fifth of a rebuild's write time), and COPY the JSON
 * (when `copy` allows it and there are rows enough to pay for its second round trip).
 */
export function writeSteps(change: TableChanges, generation: number, copy: boolean): WriteStep[] {
  const { table } = change;
  const physical = q(physicalTable(table.logical, generation));
  const pk = table.primaryKey;
  const names = table.columns.map((c) => c.name);
  const columns = names.map(q).join(', ');
  const fromJson = `select ${columns} from json_to_recordset($1::json) as r(${recordsetColumns(table, names)})`;
  const steps: WriteStep[] = [];
  const sql = (text: string, rows: readonly object[]) =>
    steps.push({ kind: 'sql', table, statement: { text, values: [toJson(rows)] } });
  if (change.inserts.length > 0) {
    const text =
      copy && change.inserts.length >= COPY_MIN_ROWS ? encodeCopyRows(table, change.inserts) : undefined;
    if (text !== undefined) steps.push({ kind: 'copy', table, physical, text });
    else sql(`insert into ${physical} (${columns}) ${fromJson}`, change.inserts);
  }
  if (change.upserts.length > 0) {
    const rest = names.filter((n) => !pk.includes(n));
    const onConflict =
      rest.length === 0
        ? `on conflict (${pk.map(q).join(', ')}) do nothing`
        : `on conflict (${pk.map(q).join(', ')}) do update set ${rest.map((n) => `${q(n)} = excluded.${q(n)}`).join(', ')}`;
    sql(`insert into ${physical} (${columns}) ${fromJson} ${onConflict}`, change.upserts);
  }
  if (change.deletes.length > 0) {
    sql(
      `delete from ${physical} t using json_to_recordset($1::json) as k(${recordsetColumns(table, pk)})
        where ${pk.map((c) => `t.${q(c)} = k.${q(c)}`).join(' and ')}`,
      change.deletes,
    );
  }
  for (const [r, rollup] of table.rollups.entries()) {
    const deltas = change.rollupDeltas[r] ?? [];
    if (deltas.length > 0) {
      for (const statement of rollupStatements(rollup.table, deltas, generation))
        steps.push({ kind: 'sql', table, statement });
    }
  }
  return steps;
}

/**
 * Adds the batch's count deltas to a rollup: one upsert, groups already merged (an upsert may not
 * touch a row twice). When a count went down, a second statement deletes the groups it brought to
 * 0, so a rollup holds only groups that count something.
 */
function rollupStatements(
  table: StoredTable,
  deltas: readonly RollupDelta[],
  generation: number,
): Statement[] {
  const physical = q(physicalTable(table.logical, generation));
  const pk = table.primaryKey;
  const names = table.columns.map((c) => c.name);
  const n = q(ROLLUP_COUNT_COLUMN);
  const upsert: Statement = {
    text: `insert into ${physical} as t (${names.map(q).join(', ')})
     select ${names.map(q).join(', ')} from json_to_recordset($1::json) as r(${recordsetColumns(table, names)})
     on conflict (${pk.map(q).join(', ')}) do update set ${n} = t.${n} + excluded.${n}`,
    values: [toJson(deltas.map((d) => ({ ...d.group, [ROLLUP_COUNT_COLUMN]: d.n })))],
  };
  const lowered = deltas.filter((d) => d.n < 0).map((d) => d.group);
  if (lowered.length === 0) return [upsert];
  const zeroes: Statement = {
    text: `delete from ${physical} t using json_to_recordset($1::json) as k(${recordsetColumns(table, pk)})
      where t.${n} = 0 and ${pk.map((c) => `t.${q(c)} = k.${q(c)}`).join(' and ')}`,
    values: [toJson(lowered)],
  };
  return [upsert, zeroes];
}
