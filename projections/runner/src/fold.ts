import { comparePositions, type Position, type RecordedEvent } from '@parley/eventstore';
import { completeRow } from './completeRow.js';
import type { CompiledRollup, CompiledTable, Projection, Row } from './defineProjection.js';
import { ProjectionHandlerError } from './errors.js';

/**
 * The pure half of a batch: which rows the events touch (planBatch), then
 * their next states, folded in log order over the rows loaded for those keys
 * (foldBatch). The runner does the loading and writing around these.
 */

/** A value as it is compared and serialised: Dates as ISO text, bigints as decimal text. */
export function normalizeValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export const jsonReplacer = (_key: string, value: unknown): unknown =>
  typeof value === 'bigint' ? value.toString() : value;

/**
 * JSON.stringify with bigints as decimal text. A replacer function costs a call per value (a
 * third of a rebuild's serialisation time), so it is only used when the plain call meets a
 * bigint (its TypeError); the output is the same either way.
 */
export function toJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof TypeError) return JSON.stringify(value, jsonReplacer);
    throw err;
  }
}

export function keyString(table: CompiledTable, key: Row): string {
  return valuesKey(table.primaryKey, key);
}

/** Whether JSON.stringify would only add quotes: no quote, backslash, control character or surrogate. */
function plainString(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}

/**
 * toJson of the row's normalised values at `columns`, as an array. Strings, finite numbers,
 * booleans and Dates (keys are nearly always these) are joined here without the intermediate
 * array; the text is the same.
 */
function valuesKey(columns: readonly string[], row: Row): string {
  let out = '[';
  for (let i = 0; i < columns.length; i++) {
    const value = row[columns[i] as string];
    let text: string;
    if (typeof value === 'string') text = plainString(value) ? `"${value}"` : JSON.stringify(value);
    // An ISO date has nothing to escape.
    else if (value instanceof Date) text = `"${value.toISOString()}"`;
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean')
      text = String(value);
    else return toJson(columns.map((c) => normalizeValue(row[c])));
    out += i === 0 ? text : `,${text}`;
  }
  return `${out}]`;
}

function encodeRow(table: CompiledTable, row: Row): string {
  return toJson(table.columns.map((c) => normalizeValue(row[c.name] ?? null)));
}

export interface PlannedTable {
  readonly table: CompiledTable;
  /** Handler key string → the key (primary-key columns only), first form seen. */
  readonly keys: Map<string, Row>;
  /** Per planned event (same index as BatchPlan.events): the key strings it touches. */
  readonly perEvent: (readonly string[])[];
  /** Every key value is a string: with a text primary key, each handler key is its canonical form. */
  allStrings: boolean;
}

export interface BatchPlan {
  /** The checkpoint the batch was planned after. */
  readonly after: Position;
  /** The events to fold, in log order: after the checkpoint, of the projection's types. */
  readonly events: readonly RecordedEvent[];
  /** Where the checkpoint moves: the last event read, even one of a type the projection ignores. */
  readonly checkpoint: Position;
  readonly tables: readonly PlannedTable[];
}

export function planBatch(
  projection: Projection,
  batch: readonly RecordedEvent[],
  after: Position,
): BatchPlan {
  const planner = batchPlanner(projection, after);
  planner.add(batch, 0, batch.length);
  return planner.plan;
}

/**
 * planBatch in steps (`add` a slice of the batch at a time, in order), for a caller that plans
 * between other work: a rebuild plans the next batch in slices while this one's writes run.
 */
export function batchPlanner(
  projection: Projection,
  after: Position,
): { readonly plan: BatchPlan; add(batch: readonly RecordedEvent[], from: number, to: number): void } {
  const types = projection.eventTypes ? new Set(projection.eventTypes) : undefined;
  const tables: PlannedTable[] = projection.compiled.map((table) => ({
    table,
    keys: new Map(),
    perEvent: [],
    allStrings: true,
  }));
  const plan = { after, events: [] as RecordedEvent[], checkpoint: after, tables };
  const add = (batch: readonly RecordedEvent[], from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const event = batch[i] as RecordedEvent;
      // At or before the checkpoint means already applied: a replay never applies twice.
      if (comparePositions(event.position, plan.checkpoint) <= 0) continue;
      plan.checkpoint = event.position;
      if (types && !types.has(event.type)) continue;
      plan.events.push(event);
      for (const planned of tables) planned.perEvent.push(keysOf(projection.name, planned, event));
    }
  };
  return { plan, add };
}

function keysOf(projection: string, planned: PlannedTable, event: RecordedEvent): string[] {
  const { table } = planned;
  let keys: readonly Row[];
  try {
    keys = table.handlers.keys(event);
    if (!Array.isArray(keys)) throw new TypeError('keys() must return an array');
  } catch (err) {
    throw new ProjectionHandlerError(projection, table.logical, 'keys', event, err);
  }
  const strings: string[] = [];
  for (const key of keys) {
    const picked: Row = {};
    for (const column of table.primaryKey) {
      const value = key[column];
      if (value === undefined || value === null) {
        const err = new TypeError(`key column ${column} is ${String(value)}`);
        throw new ProjectionHandlerError(projection, table.logical, 'keys', event, err);
      }
      if (typeof value !== 'string') planned.allStrings = false;
      picked[column] = value;
    }
    const s = keyString(table, picked);
    if (strings.includes(s)) continue;
    strings.push(s);
    if (!planned.keys.has(s)) planned.keys.set(s, picked);
  }
  return strings;
}

export interface LoadedRow {
  /** The key as the table holds it (canonical: what PostgreSQL made of the handler's key). */
  readonly key: Row;
  readonly row: Row | undefined;
}

export interface LoadedRows {
  /** Handler key string → canonical key string. Missing: the handler's own form is canonical. */
  readonly canonical: ReadonlyMap<string, string>;
  /** Canonical key string → key and current row. */
  readonly rows: ReadonlyMap<string, LoadedRow>;
}

export interface TableChanges {
  readonly table: CompiledTable;
  /**
   * Complete rows (key columns taken from the key) the load did not find: a plain insert will do
   * (a rebuild's usual rows).
   */
  readonly inserts: Row[];
  /** Complete rows the load found, changed. */
  readonly upserts: Row[];
  /** Keys of rows to delete. */
  readonly deletes: Row[];
  /** Per rollup of the table (same order): the changed groups, each with its count delta (never 0). */
  readonly rollupDeltas: RollupDelta[][];
}

export interface RollupDelta {
  readonly group: Row;
  n: number;
}

interface Slot {
  key: Row;
  row: Row | undefined;
  /** The row as loaded (undefined: it did not exist), for the rollups' old groups. */
  loaded: Row | undefined;
  initial: string | undefined;
  lastEvent: RecordedEvent;
}

/** Adds `sign` for each group of `row` to the rollup's deltas (keyed by the group's values). */
function countGroups(
  projection: string,
  rollup: CompiledRollup,
  deltas: Map<string, RollupDelta>,
  row: Row,
  sign: 1 | -1,
  event: RecordedEvent,
): void {
  let groups: readonly Row[];
  try {
    groups = rollup.groups(row);
  } catch (err) {
    throw new ProjectionHandlerError(projection, rollup.table.logical, 'row', event, err);
  }
  for (const group of groups) {
    const complete: Row = {};
    for (const column of rollup.table.primaryKey) {
      const value = group[column];
      if (value === undefined || value === null) {
        const err = new TypeError(`rollup group column ${column} is ${String(value)}`);
        throw new ProjectionHandlerError(projection, rollup.table.logical, 'row', event, err);
      }
      complete[column] = value;
    }
    const key = valuesKey(rollup.table.primaryKey, complete);
    const delta = deltas.get(key);
    if (delta) delta.n += sign;
    else deltas.set(key, { group: complete, n: sign });
  }
}

export function foldBatch(
  projection: Projection,
  plan: BatchPlan,
  loaded: readonly LoadedRows[],
): TableChanges[] {
  return plan.tables.map((planned, t) => {
    const { table } = planned;
    const current = loaded[t];
    const slots = new Map<string, Slot>();
    plan.events.forEach((event, e) => {
      const handlerKeys = planned.perEvent[e] ?? [];
      // Most events touch one row; a Set only for those that touch several.
      const seen = handlerKeys.length > 1 ? new Set<string>() : undefined;
      for (const handlerKey of handlerKeys) {
        const canonical = current?.canonical.get(handlerKey) ?? handlerKey;
        if (seen) {
          if (seen.has(canonical)) continue;
          seen.add(canonical);
        }
        let slot = slots.get(canonical);
        if (!slot) {
          const found = current?.rows.get(canonical);
          const key = found?.key ?? planned.keys.get(handlerKey) ?? {};
          const row = found?.row;
          slot = { key, row, loaded: row, initial: row && encodeRow(table, row), lastEvent: event };
          slots.set(canonical, slot);
        }
        try {
          // null reads as undefined: both mean "no row".
          slot.row = table.handlers.evolve(slot.row, event, slot.key) ?? undefined;
        } catch (err) {
          throw new ProjectionHandlerError(projection.name, table.logical, 'evolve', event, err);
        }
        slot.lastEvent = event;
      }
    });
    const deltas = table.rollups.map(() => new Map<string, RollupDelta>());
    const count = (row: Row | undefined, sign: 1 | -1, event: RecordedEvent): void => {
      if (row === undefined) return;
      table.rollups.forEach((rollup, r) => {
        countGroups(projection.name, rollup, deltas[r] as Map<string, RollupDelta>, row, sign, event);
      });
    };
    const changes: TableChanges = { table, inserts: [], upserts: [], deletes: [], rollupDeltas: [] };
    for (const slot of slots.values()) {
      if (slot.row === undefined) {
        if (slot.initial !== undefined) {
          changes.deletes.push(slot.key);
          count(slot.loaded, -1, slot.lastEvent);
        }
        continue;
      }
      const out = completeRow(projection.name, table, slot.key, slot.row, slot.lastEvent);
      // A new row is always written; only an existing one is compared (a rebuild's rows are new).
      if (slot.initial === undefined) {
        changes.inserts.push(out);
        count(out, 1, slot.lastEvent);
      } else if (encodeRow(table, out) !== slot.initial) {
        changes.upserts.push(out);
        count(slot.loaded, -1, slot.lastEvent);
        count(out, 1, slot.lastEvent);
      }
    }
    for (const rollupDeltas of deltas)
      changes.rollupDeltas.push([...rollupDeltas.values()].filter((d) => d.n !== 0));
    return changes;
  });
}
