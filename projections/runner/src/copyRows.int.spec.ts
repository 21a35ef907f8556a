import { createTestDatabase, type TestDatabase } from '@parley/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRows, encodeCopyRows } from './copyRows.js';
import { createTableSql, physicalTable } from './ddl.js';
import type { StoredTable } from './defineProjection.js';
import { toJson } from './fold.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase([]);
});
afterAll(() => db.close());

const table: StoredTable = {
  logical: 'copy_check',
  columns: [
    { name: 'k', type: 'text', nullable: false },
    { name: 'u', type: 'uuid', nullable: true },
    { name: 'b', type: 'boolean', nullable: true },
    { name: 's', type: 'smallint', nullable: true },
    { name: 'i', type: 'integer', nullable: true },
    { name: 'g', type: 'bigint', nullable: true },
    { name: 'd', type: 'double precision', nullable: true },
    { name: 'n', type: 'numeric', nullable: true },
    { name: 't', type: 'timestamptz', nullable: true },
    { name: 'j', type: 'jsonb', nullable: true },
    { name: 'a', type: 'text[]', nullable: true },
    { name: 'x', type: 'text', nullable: true },
  ],
  primaryKey: ['k'],
  indexes: [],
};

const awkward = [
  '',
  'tab\there',
  'line\nbreak\r\n',
  'back\\slash \\N \\.',
  '"quoted", {braces}',
  'é ✓ 😀',
  'NULL',
];

/** Rows with every column type and the values COPY's text format must escape. */
const rows = awkward.map((text, n) => ({
  k: `${n}:${text}`,
  u: n % 2 ? 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' : null,
  b: n % 3 === 0,
  s: -n,
  i: n * 1000,
  g: 2 ** 40 + n,
  d: [0, -0, 1.5, 1e-7, 1e21, -3.25, 0.1][n] as number,
  n: ['0', '1.10', '-0.000001', '12345678901234567890.5', 3, 0.1, '7'][n],
  t: [new Date(0), '2026-11-27T00:00:00.123+02:00', new Date('2026-11-26T23:57:07.420Z')][n % 3],
  j: [{ a: text, nested: [1, 'two', null, { deep: true }] }, [text], 42, true, { '': text }][n % 5],
  a: [[text, null, 'x'], [], ['"', '\\', ','], '{a,b}'][n % 4],
  x: text,
}));

const json = async (physical: string, data: readonly Record<string, unknown>[]) => {
  const names = table.columns.map((c) => `"${c.name}"`).join(', ');
  const types = table.columns.map((c) => `"${c.name}" ${c.type}`).join(', ');
  await db.pool.query(
    `insert into "${physical}" (${names}) select ${names} from json_to_recordset($1::json) as r(${types})`,
    [toJson(data)],
  );
};

const contents = async (physical: string) =>
  (await db.pool.query(`select to_jsonb(t)::text as row from "${physical}" t order by k`)).rows;

describe('COPY rows', () => {
  it('stores every row exactly as the JSON path does', async () => {
    for (const generation of [1, 2]) await db.pool.query(createTableSql(table, generation));
    await json(physicalTable(table.logical, 1), rows);
    const text = encodeCopyRows(table, rows);
    expect(text).toBeDefined();
    const client = await db.pool.connect();
    try {
      await copyRows(client, `"${physicalTable(table.logical, 2)}"`, table, text as string);
    } finally {
      client.release();
    }
    const copied = await contents(physicalTable(table.logical, 2));
    expect(copied).toHaveLength(rows.length);
    expect(copied).toEqual(await contents(physicalTable(table.logical, 1)));
  });

  it('leaves to the JSON path the values whose errors or meaning would differ', () => {
    const base = rows[0] as Record<string, unknown>;
    for (const odd of [
      { x: 'nul \u0000 inside' },
      { x: 'lone \ud800 surrogate' },
      { t: new Date(Number.NaN) },
      { j: 'a jsonb string' },
      { j: new Date(0) },
      { x: { an: 'object' } },
      { a: [1, 2] },
      { d: Number.POSITIVE_INFINITY },
    ]) {
      expect(encodeCopyRows(table, [{ ...base, ...odd }]), JSON.stringify(Object.keys(odd))).toBeUndefined();
    }
  });

  it('refuses what PostgreSQL refuses, as a data error', async () => {
    await db.pool.query(createTableSql(table, 3));
    const client = await db.pool.connect();
    try {
      const bad = encodeCopyRows(table, [{ ...rows[0], i: 1.5 }]) as string;
      const err = await copyRows(client, `"${physicalTable(table.logical, 3)}"`, table, bad).catch((e) => e);
      expect(err).toMatchObject({ code: '22P02' });
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      client.release();
    }
  });
});
