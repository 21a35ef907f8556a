import { type Position, type RecordedEvent, START } from '@parley/eventstore';
import type { Projection, Row } from '../defineProjection.js';
import { foldBatch, keyString, type LoadedRow, type LoadedRows, planBatch } from '../fold.js';

/** A projection's tables held in memory: logical table → key string → row. */
export interface MemoryState {
  readonly checkpoint: Position;
  readonly tables: ReadonlyMap<string, ReadonlyMap<string, Row>>;
}

export function emptyState(projection: Projection): MemoryState {
  return { checkpoint: START, tables: new Map(projection.compiled.map((t) => [t.logical, new Map()])) };
}

/**
 * Runs one batch through the same planning and fold code as the runner, with
 * a Map in place of PostgreSQL: for unit tests of a projection's handlers
 * (Given events / When folded / Then rows). Keys are compared as the handlers
 * give them (the runner canonicalises them through PostgreSQL first).
 */
export function projectInMemory(
  projection: Projection,
  events: readonly RecordedEvent[],
  state: MemoryState = emptyState(projection),
): MemoryState {
  const plan = planBatch(projection, events, state.checkpoint);
  const loaded: LoadedRows[] = plan.tables.map((planned) => {
    const current = state.tables.get(planned.table.logical);
    const rows = new Map<string, LoadedRow>();
    for (const [handlerKey, key] of planned.keys)
      rows.set(handlerKey, { key, row: current?.get(handlerKey) });
    return { canonical: new Map(), rows };
  });
  const tables = new Map<string, Map<string, Row>>();
  for (const [name, rows] of state.tables) tables.set(name, new Map(rows));
  for (const change of foldBatch(projection, plan, loaded)) {
    const rows = tables.get(change.table.logical) ?? new Map<string, Row>();
    tables.set(change.table.logical, rows);
    for (const key of change.deletes) rows.delete(keyString(change.table, key));
    for (const row of [...change.inserts, ...change.upserts]) rows.set(keyString(change.table, row), row);
  }
  return { checkpoint: plan.checkpoint, tables };
}

/** A table's rows in key order. */
export function memoryRows(state: MemoryState, table: string): Row[] {
  const rows = state.tables.get(table);
  if (!rows) return [];
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}
