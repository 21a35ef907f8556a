import { createHash } from 'node:crypto';
import type { StoredTable } from './defineProjection.js';

/**
 * Physical layout: generation N of logical table `x` is the table `x_g<N>` in
 * the same schema; readers query the view `x`, which selects from the live
 * generation's table. Names are validated identifiers (defineProjection), so
 * quoting them is enough.
 */
export const physicalTable = (logical: string, generation: number): string => `${logical}_g${generation}`;

const q = (ident: string): string => `"${ident}"`;

/** A key column, quoted, or an expression (validated by defineProjection) in parentheses. */
const indexKey = (key: StoredTable['indexes'][number]['columns'][number]): string =>
  typeof key === 'string' ? q(key) : `(${key.expression})`;

export function createTableSql(table: StoredTable, generation: number): string {
  const columns = table.columns.map((c) => `${q(c.name)} ${c.type}${c.nullable ? '' : ' not null'}`);
  const key = `primary key (${table.primaryKey.map(q).join(', ')})`;
  return `create table ${q(physicalTable(table.logical, generation))} (${[...columns, key].join(', ')})`;
}

/** Secondary indexes; a rebuild creates them after the bulk load, when they cost least. */
export function createIndexesSql(table: StoredTable, generation: number): string[] {
  const physical = physicalTable(table.logical, generation);
  return table.indexes.map(
    (index, i) =>
      `create ${index.unique ? 'unique ' : ''}index if not exists ${q(`${physical}_i${i + 1}`)} ` +
      `on ${q(physical)} (${index.columns.map(indexKey).join(', ')})` +
      (index.include === undefined ? '' : ` include (${index.include.map(q).join(', ')})`),
  );
}

export function viewSql(table: StoredTable, generation: number, mode: 'replace' | 'create'): string {
  const columns = table.columns.map((c) => q(c.name)).join(', ');
  const verb = mode === 'replace' ? 'create or replace view' : 'create view';
  return `${verb} ${q(table.logical)} as select ${columns} from ${q(physicalTable(table.logical, generation))}`;
}

export const dropTableSql = (logical: string, generation: number): string =>
  `drop table if exists ${q(physicalTable(logical, generation))}`;

export const dropViewSql = (logical: string): string => `drop view if exists ${q(logical)}`;

/** Identifies the tables' shape, independent of generation. */
export function ddlHash(tables: readonly StoredTable[]): string {
  const shape = tables.map((t) => ({
    table: t.logical,
    columns: t.columns.map((c) => [c.name, c.type, c.nullable]),
    primaryKey: t.primaryKey,
    // `include` only when set, so that tables without it keep their hash.
    indexes: t.indexes.map((i) =>
      i.include ? [i.columns, i.unique === true, i.include] : [i.columns, i.unique === true],
    ),
  }));
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 16);
}
