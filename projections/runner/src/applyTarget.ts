import type { Position } from '@parley/eventstore';
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

/** What a batch's writes amount to. */
export function changeCounts(
  changes: readonly {
    inserts: readonly unknown[];
    upserts: readonly unknown[];
    deletes: readonly unknown[];
  }[],
): { upserted: number; deleted: number } {
  let upserted = 0;
  let deleted = 0;
  for (const change of changes) {
    upserted += change.inserts.length + change.upserts.length;
    deleted += change.deletes.length;
  }
  return { upserted, deleted };
}
