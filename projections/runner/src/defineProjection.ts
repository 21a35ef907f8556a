import type { RecordedEvent } from '@parley/eventstore';
import { ParleyError } from '@parley/platform';
import { type ColumnSpec, type ColumnValue, columnNullable, columnType, columnTypes } from './columnTypes.js';
import { ddlHash } from './ddl.js';

/**
 * An index key that is an expression over the row's columns (`of`), for a read that orders or
 * filters by it, e.g. `coalesce(last_activity_at, created_at)`. Written as is into the DDL.
 */
export interface IndexExpression<Column extends string = string> {
  readonly expression: string;
  readonly of: readonly Column[];
}

export interface IndexSpec<Column extends string = string> {
  /** Key columns, in order; an entry may be an expression (IndexExpression). */
  readonly columns: readonly (Column | IndexExpression<Column>)[];
  readonly unique?: boolean;
  /**
   * Columns stored in the index's leaf entries but not in its key (`INCLUDE`): a scan can test
   * filters on them without visiting the table, and count or page index-only.
   */
  readonly include?: readonly Column[];
}

/**
 * A count rollup of a table, kept exact by the runner in the same transaction as the table: for
 * every row a batch changes, each group of its old state counts one less and each group of its new
 * state one more (`n`). Readers sum `n` over the groups a filter selects instead of counting rows.
 * `groups` is pure and returns complete group rows (every column, none null); a row may count in
 * no group, one, or several (one per dimension, say).
 */
export interface RollupSpec<Row = Record<string, unknown>> {
  readonly columns: Readonly<Record<string, ColumnSpec>>;
  groups(row: Row): readonly Record<string, unknown>[];
}

/** One read-model table: columns in order, primary key, extra indexes, count rollups. */
export interface TableSpec<
  Columns extends Record<string, ColumnSpec> = Record<string, ColumnSpec>,
  Key extends keyof Columns & string = keyof Columns & string,
> {
  readonly columns: Columns;
  readonly primaryKey: readonly Key[];
  readonly indexes?: readonly IndexSpec<keyof Columns & string>[];
  /** Logical rollup table name → spec; each gets its own table and view like any table. */
  readonly rollups?: Readonly<
    Record<string, RollupSpec<{ -readonly [C in keyof Columns]: ColumnValue<Columns[C]> }>>
  >;
}

export type RowOf<T extends TableSpec> = {
  -readonly [C in keyof T['columns']]: ColumnValue<T['columns'][C]>;
};
export type KeyOf<T extends TableSpec> = Pick<RowOf<T>, T['primaryKey'][number]>;

/**
 * Pure functions, no I/O: the runner loads the rows, calls these in log
 * order, and writes the result. `keys` names the rows an event touches (none
 * for an event the table ignores); `evolve` returns the row's next state, or
 * undefined to delete it (or leave it absent). Primary-key columns of the
 * returned row are ignored: the key is authoritative.
 */
export interface TableHandlers<Row, Key> {
  keys(event: RecordedEvent): readonly Key[];
  evolve(row: Row | undefined, event: RecordedEvent, key: Key): Row | undefined;
}

export type HandlersOf<Tables extends Record<string, TableSpec>> = {
  readonly [N in keyof Tables]: TableHandlers<RowOf<Tables[N]>, KeyOf<Tables[N]>>;
};

export interface ProjectionDefinition<Tables extends Record<string, TableSpec>> {
  /** Stable identity in the registry: lowercase letters, digits, `-`, `_`. */
  readonly name: string;
  /** Bump when handlers or tables change meaning; a new version goes live through a rebuild. */
  readonly version: number;
  /** The event types the handlers read. Omitted: all. */
  readonly eventTypes?: readonly string[];
  /** Logical table name → spec; readers query a view of that name. */
  readonly tables: Tables;
  readonly handlers: HandlersOf<Tables>;
}

export interface CompiledColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
}

export type Row = Record<string, unknown>;

/** A table's shape, all DDL needs. */
export interface StoredTable {
  readonly logical: string;
  readonly columns: readonly CompiledColumn[];
  readonly primaryKey: readonly string[];
  readonly indexes: readonly IndexSpec[];
}

/** The count column every rollup table has. */
export const ROLLUP_COUNT_COLUMN = 'n';

/** A rollup as the runner sees it: its table (group columns + `n`, keyed by the groups). */
export interface CompiledRollup {
  readonly table: StoredTable;
  readonly groups: (row: Row) => readonly Row[];
}

/** A table as the runner sees it: types erased, order fixed. */
export interface CompiledTable extends StoredTable {
  readonly handlers: TableHandlers<Row, Row>;
  readonly rollups: readonly CompiledRollup[];
}

export interface Projection<Tables extends Record<string, TableSpec> = Record<string, TableSpec>> {
  readonly name: string;
  readonly version: number;
  readonly eventTypes: readonly string[] | undefined;
  readonly tables: Tables;
  /** Hash of the tables' definitions; a change without a version bump is refused. */
  readonly ddlHash: string;
  readonly compiled: readonly CompiledTable[];
  /** Every physical table of a generation: the tables, then their rollups. */
  readonly storage: readonly StoredTable[];
}

const NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const IDENT = /^[a-z][a-z0-9_]*$/;
/** Index expressions: lower-case names, calls, arithmetic and commas (no quotes, no semicolons). */
const INDEX_EXPRESSION = /^[a-z0-9_ (),+\-*/]+$/;
// Leaves room for `_g<generation>_i<n>` and `_pkey` within PostgreSQL's 63 bytes.
const MAX_TABLE_NAME = 44;

export class ProjectionDefinitionError extends ParleyError {
  override readonly name = 'ProjectionDefinitionError';
  constructor(message: string) {
    super('PROJECTION_DEFINITION_INVALID', 500, message);
  }
}

export function defineProjection<const Tables extends Record<string, TableSpec>>(
  definition: ProjectionDefinition<Tables>,
): Projection<Tables> {
  const { name, version, eventTypes, tables } = definition;
  const fail = (msg: string): never => {
    throw new ProjectionDefinitionError(`projection ${JSON.stringify(name)}: ${msg}`);
  };
  if (!NAME.test(name)) fail('name must match /^[a-z][a-z0-9_-]*$/ (at most 63 characters)');
  if (!Number.isSafeInteger(version) || version < 1) fail('version must be a positive integer');
  if (eventTypes !== undefined && eventTypes.length === 0) {
    fail('eventTypes must list at least one type (omit it for all types)');
  }
  const handlers = definition.handlers as unknown as Record<string, TableHandlers<Row, Row> | undefined>;
  const compiled: CompiledTable[] = [];
  for (const [logical, spec] of Object.entries(tables as Record<string, TableSpec>)) {
    if (!IDENT.test(logical) || logical.length > MAX_TABLE_NAME) {
      fail(`table name ${logical} must match /^[a-z][a-z0-9_]*$/, at most ${MAX_TABLE_NAME} characters`);
    }
    const columns: CompiledColumn[] = [];
    for (const [column, columnSpec] of Object.entries(spec.columns)) {
      if (!IDENT.test(column) || column.length > 63) fail(`${logical}.${column}: bad column name`);
      const type = columnType(columnSpec);
      if (!columnTypes.includes(type)) fail(`${logical}.${column}: unsupported type ${type}`);
      columns.push({ name: column, type, nullable: columnNullable(columnSpec) });
    }
    const names = new Set(columns.map((c) => c.name));
    if (spec.primaryKey.length === 0) fail(`${logical}: primaryKey must name at least one column`);
    if (new Set(spec.primaryKey).size !== spec.primaryKey.length)
      fail(`${logical}: repeated primaryKey column`);
    for (const column of spec.primaryKey) {
      if (!names.has(column)) fail(`${logical}: primaryKey column ${column} is not a column`);
      if (columns.find((c) => c.name === column)?.nullable)
        fail(`${logical}: key column ${column} is nullable`);
    }
    for (const index of spec.indexes ?? []) {
      if (index.columns.length === 0) fail(`${logical}: an index must name at least one column`);
      for (const key of index.columns) {
        if (typeof key === 'string') continue;
        if (!INDEX_EXPRESSION.test(key.expression) || key.of.length === 0) {
          fail(`${logical}: bad index expression ${key.expression}`);
        }
      }
      const keyColumns = index.columns.flatMap((key) => (typeof key === 'string' ? [key] : key.of));
      for (const column of [...keyColumns, ...(index.include ?? [])]) {
        if (!names.has(column)) fail(`${logical}: index column ${column} is not a column`);
      }
    }
    const tableHandlers = handlers[logical];
    if (typeof tableHandlers?.keys !== 'function' || typeof tableHandlers.evolve !== 'function') {
      fail(`${logical}: handlers.${logical} needs keys and evolve`);
    }
    const rollups: CompiledRollup[] = [];
    for (const [rollupName, rollup] of Object.entries(spec.rollups ?? {})) {
      if (!IDENT.test(rollupName) || rollupName.length > MAX_TABLE_NAME) {
        fail(
          `rollup name ${rollupName} must match /^[a-z][a-z0-9_]*$/, at most ${MAX_TABLE_NAME} characters`,
        );
      }
      const groupColumns: CompiledColumn[] = [];
      for (const [column, columnSpec] of Object.entries(rollup.columns)) {
        if (!IDENT.test(column) || column.length > 63 || column === ROLLUP_COUNT_COLUMN) {
          fail(`${rollupName}.${column}: bad rollup column name`);
        }
        const type = columnType(columnSpec);
        if (!columnTypes.includes(type)) fail(`${rollupName}.${column}: unsupported type ${type}`);
        if (columnNullable(columnSpec)) fail(`${rollupName}.${column}: rollup group columns cannot be null`);
        groupColumns.push({ name: column, type, nullable: false });
      }
      if (groupColumns.length === 0) fail(`${rollupName}: a rollup needs at least one group column`);
      if (typeof rollup.groups !== 'function') fail(`${rollupName}: groups must be a function`);
      rollups.push({
        table: {
          logical: rollupName,
          columns: [...groupColumns, { name: ROLLUP_COUNT_COLUMN, type: 'bigint', nullable: false }],
          primaryKey: groupColumns.map((c) => c.name),
          indexes: [],
        },
        groups: rollup.groups as (row: Row) => readonly Row[],
      });
    }
    compiled.push({
      logical,
      columns,
      primaryKey: [...spec.primaryKey],
      indexes: (spec.indexes ?? []).map((i) => ({
        columns: i.columns.map((key) =>
          typeof key === 'string' ? key : { expression: key.expression, of: [...key.of] },
        ),
        unique: i.unique === true,
        ...(i.include !== undefined && i.include.length > 0 && { include: [...i.include] }),
      })),
      handlers: tableHandlers as TableHandlers<Row, Row>,
      rollups,
    });
  }
  if (compiled.length === 0) fail('tables must define at least one table');
  const storage: StoredTable[] = [...compiled, ...compiled.flatMap((t) => t.rollups.map((r) => r.table))];
  const seen = new Set<string>();
  for (const table of storage) {
    if (seen.has(table.logical)) fail(`table name ${table.logical} is used twice`);
    seen.add(table.logical);
  }
  for (const key of Object.keys(handlers)) {
    if (!compiled.some((t) => t.logical === key)) fail(`handlers.${key} has no table`);
  }
  return {
    name,
    version,
    eventTypes: eventTypes === undefined ? undefined : [...eventTypes],
    tables,
    ddlHash: ddlHash(storage),
    compiled,
    storage,
  };
}
