import { defineProjection } from '../defineProjection.js';

/**
 * The runner's test projection. Per stream: events counted, a running total
 * and the last type. `Added`/`Removed` change one row, `Moved` two (its
 * stream's and `data.to`'s), `Reset` deletes the row; any other type is not
 * the projection's. `data.poison` naming the projection makes evolve throw. Version 2 counts every
 * amount ten times and has another column order, so its view must be dropped
 * and re-created at the swap.
 */
export const TALLY_TYPES = ['Added', 'Removed', 'Moved', 'Reset'] as const;

const amountOf = (data: Record<string, unknown>): number =>
  typeof data.amount === 'number' ? data.amount : 0;

/**
 * With `rollup`, the table also keeps `<table>_r`: rows counted by (last_type, sign of total), each
 * row in two groups (its own and its last_type's `any` sign), so deletes, moves between groups and
 * several groups per row are all exercised.
 */
export function tallyProjection(name: string, table: string, version: 1 | 2 = 1, rollup = false) {
  const factor = version === 1 ? 1 : 10;
  return defineProjection({
    name,
    version,
    eventTypes: TALLY_TYPES,
    tables: {
      [table]: {
        columns:
          version === 1
            ? { stream: 'text', count: 'integer', total: 'bigint', last_type: 'text' }
            : { stream: 'text', total: 'bigint', count: 'integer', last_type: 'text' },
        primaryKey: ['stream'],
        indexes: [{ columns: ['last_type'] }],
        ...(rollup && {
          rollups: {
            [`${table}_r`]: {
              columns: { last_type: 'text', sign: 'text' },
              groups: (row: { last_type: string; total: number }) => [
                { last_type: row.last_type, sign: row.total >= 0 ? 'pos' : 'neg' },
                { last_type: row.last_type, sign: 'any' },
              ],
            },
          },
        }),
      },
    },
    handlers: {
      [table]: {
        keys: (event) => {
          if (event.type === 'Moved' && typeof event.data.to === 'string') {
            return [{ stream: event.stream }, { stream: event.data.to }];
          }
          return [{ stream: event.stream }];
        },
        evolve: (row, event, key) => {
          if (event.data.poison === name) throw new Error('poisoned event');
          if (event.type === 'Reset') return undefined;
          const amount = amountOf(event.data) * factor;
          const delta =
            event.type === 'Added'
              ? amount
              : event.type === 'Removed'
                ? -amount
                : key.stream === event.stream
                  ? -amount
                  : amount;
          return {
            stream: key.stream,
            count: (row?.count ?? 0) + 1,
            total: (row?.total ?? 0) + delta,
            last_type: event.type,
          };
        },
      },
    },
  });
}
