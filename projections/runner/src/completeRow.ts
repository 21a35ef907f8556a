import type { RecordedEvent } from '@parley/eventstore';
import type { CompiledTable, Row } from './defineProjection.js';
import { ProjectionHandlerError } from './errors.js';

/**
 * A row as written: every column of the table in order, key columns taken from the key, absent
 * values as null; a missing non-nullable value or a non-finite number throws. The handlers' rows
 * are checked once per changed row of every batch, so this runs as code generated per table (each
 * column read and written with a constant key: a loop over the names made every read and write one
 * megamorphic access, a seventh of a ledger rebuild's fold). Whatever the generated code would not
 * pass goes to checkedRow, which throws the error; a property test holds the two to the same rows.
 */
export function completeRow(
  projection: string,
  table: CompiledTable,
  key: Row,
  row: Row | undefined,
  event: RecordedEvent,
): Row {
  const values = row ?? {};
  if (typeof values === 'object' && values !== null) {
    const out = completerOf(table)(key, values);
    if (out !== undefined) return out;
  }
  return checkedRow(projection, table, key, row, event);
}

type Complete = (key: Row, row: Row) => Row | undefined;

const completers = new WeakMap<CompiledTable, Complete>();

function completerOf(table: CompiledTable): Complete {
  let found = completers.get(table);
  if (!found) {
    const lines = table.columns.map((column) => {
      const k = JSON.stringify(column.name);
      const from = table.primaryKey.includes(column.name) ? 'key' : 'row';
      return `v = ${from}[${k}];
        if (v === undefined || v === null) { ${column.nullable ? `out[${k}] = null;` : 'return undefined;'} }
        else if (typeof v === 'number' && !Number.isFinite(v)) return undefined;
        else out[${k}] = v;`;
    });
    found = new Function(`return function completeRow(key, row) {
      const out = {};
      let v;
      ${lines.join('\n')}
      return out;
    };`)() as Complete;
    completers.set(table, found);
  }
  return found;
}

/** completeRow as a loop over the columns, throwing the error of the first bad value (exported for its test). */
export function checkedRow(
  projection: string,
  table: CompiledTable,
  key: Row,
  slotRow: Row | undefined,
  event: RecordedEvent,
): Row {
  const row = slotRow ?? {};
  if (typeof row !== 'object') {
    const err = new TypeError('evolve() must return a row object or undefined');
    throw new ProjectionHandlerError(projection, table.logical, 'row', event, err);
  }
  const out: Row = {};
  for (const column of table.columns) {
    const value = table.primaryKey.includes(column.name) ? key[column.name] : row[column.name];
    if (value === undefined || value === null) {
      if (!column.nullable) {
        const err = new TypeError(`column ${column.name} is ${String(value)} but not nullable`);
        throw new ProjectionHandlerError(projection, table.logical, 'row', event, err);
      }
      out[column.name] = null;
      continue;
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      const err = new TypeError(`column ${column.name} is ${value}`);
      throw new ProjectionHandlerError(projection, table.logical, 'row', event, err);
    }
    out[column.name] = value;
  }
  return out;
}
