import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineStatements, inlineValues, literal } from './inlineStatements.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([]);
});
afterAll(() => db.close());

/** Text without NUL (no parameter can carry one either), dollar signs and tags made likely. */
const text = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('$', '$v', '$v$', '$v0', 'v$', "'", '\\', '$$'),
    ),
    {
      maxLength: 8,
    },
  )
  .map((parts) => parts.join('').replaceAll('\0', ''));

describe('inlined statements', () => {
  it('give each value back exactly as a parameter does', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (a, b) => {
        const sql = 'select $1::text as a, $2::text as b, $1::text || $2::text as ab';
        const reference = (await db.pool.query(sql, [a, b])).rows;
        const inlined = (await db.pool.query(inlineValues({ text: sql, values: [a, b] }))).rows;
        expect(inlined).toEqual(reference);
      }),
      { numRuns: 200 },
    );
  });

  it('give JSON documents to json_to_recordset as a parameter does, several statements in one', async () => {
    const row = fc.record({
      s: text,
      n: fc.integer(),
      d: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 5 }), async (rows) => {
        const sql = 'select * from json_to_recordset($1::json) as r(s text, n integer, d double precision)';
        const json = JSON.stringify(rows);
        const reference = (await db.pool.query(sql, [json])).rows;
        const results = (await db.pool.query(
          inlineStatements(['select 1 as one', { text: sql, values: [json] }]),
        )) as unknown as { rows: unknown[] }[];
        expect(results[1]?.rows).toEqual(reference);
      }),
      { numRuns: 100 },
    );
  });

  it('writes null, numbers, bigints and Dates as their text', () => {
    expect(literal(null)).toBe('null');
    expect(literal(12)).toBe('$v$12$v$');
    expect(literal(9007199254740993n)).toBe('$v$9007199254740993$v$');
    expect(literal(new Date(0))).toBe('$v$1970-01-01T00:00:00.000Z$v$');
    expect(literal('a$v')).toBe('$v0$a$v$v0$');
    expect(() => literal('nul\0')).toThrow(RangeError);
    expect(() => inlineValues({ text: 'select $2', values: [1] })).toThrow(RangeError);
  });
});
