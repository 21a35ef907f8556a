import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkedRow, completeRow } from './completeRow.js';
import type { CompiledTable, Row } from './defineProjection.js';
import { recorded } from './spec/events.js';

const [event] = recorded([{ type: 'Added', stream: 's-a', data: { amount: 1 } }]);

const value = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.date(),
  fc.bigInt(),
  fc.constantFrom(null, undefined, Number.NaN, Infinity, -Infinity, -0, [], {}),
  fc.jsonValue(),
);
const name = fc.oneof(
  fc.constantFrom('id', 'a b', '"q"', "it's", 'constructor', 'toString', 'ü'),
  fc.string(),
);

const table = fc
  .uniqueArray(fc.record({ name, nullable: fc.boolean(), key: fc.boolean() }), {
    minLength: 1,
    maxLength: 8,
    selector: (c) => c.name,
  })
  .map(
    (columns) =>
      ({
        logical: 't',
        columns: columns.map(({ name: n, nullable }) => ({ name: n, type: 'text', nullable })),
        primaryKey: columns.filter((c) => c.key).map((c) => c.name),
      }) as unknown as CompiledTable,
  );

/** Values for some of the table's columns (and some other keys). */
const rowOf = (t: CompiledTable) =>
  fc.dictionary(fc.oneof(fc.constantFrom(...t.columns.map((c) => c.name)), fc.string()), value, {
    maxKeys: 10,
  });

function outcome(fn: () => Row): { row: Row; order: string[] } | { error: string } {
  try {
    const row = fn();
    return { row, order: Object.keys(row) };
  } catch (err) {
    return { error: String(err instanceof Error ? `${err.message} / ${String(err.cause)}` : err) };
  }
}

describe('completeRow', () => {
  it('gives checkedRow’s row, key order and error', () => {
    fc.assert(
      fc.property(
        table.chain((t) => fc.tuple(fc.constant(t), rowOf(t), rowOf(t), fc.boolean())),
        ([t, key, row, absent]) => {
          const given = absent ? undefined : row;
          expect(outcome(() => completeRow('p', t, key, given, event!))).toStrictEqual(
            outcome(() => checkedRow('p', t, key, given, event!)),
          );
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('refuses a row that is not an object as before', () => {
    const t = { logical: 't', columns: [{ name: 'id', type: 'text', nullable: false }], primaryKey: ['id'] };
    const compiled = t as unknown as CompiledTable;
    for (const bad of [1, 'x', true]) {
      expect(() => completeRow('p', compiled, { id: 'a' }, bad as unknown as Row, event!)).toThrow(
        /evolve\(\) must return a row object/,
      );
    }
  });
});
