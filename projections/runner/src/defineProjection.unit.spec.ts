import { describe, expect, it } from 'vitest';
import { createIndexesSql, createTableSql, viewSql } from './ddl.js';
import { defineProjection, ProjectionDefinitionError } from './defineProjection.js';
import { tallyProjection } from './spec/tallyProjection.js';

const keep = { keys: () => [], evolve: () => undefined };

describe('defineProjection', () => {
  it('compiles tables into DDL for a generation', () => {
    const p = tallyProjection('tallies', 'tallies');
    const [table] = p.compiled;
    expect(createTableSql(table!, 3)).toBe(
      'create table "tallies_g3" ("stream" text not null, "count" integer not null, "total" bigint not null, ' +
        '"last_type" text not null, primary key ("stream"))',
    );
    expect(createIndexesSql(table!, 3)).toEqual([
      'create index if not exists "tallies_g3_i1" on "tallies_g3" ("last_type")',
    ]);
    expect(viewSql(table!, 3, 'replace')).toBe(
      'create or replace view "tallies" as select "stream", "count", "total", "last_type" from "tallies_g3"',
    );
  });

  it('writes expression keys of an index in parentheses, after checking the columns they use', () => {
    const table = {
      columns: { id: 'text', a: 'integer', b: 'integer' },
      primaryKey: ['id'],
      indexes: [{ columns: [{ expression: 'a + b', of: ['a', 'b'] }, 'id'] }],
    } as const;
    const p = defineProjection({
      name: 'sums',
      version: 1,
      eventTypes: ['X'],
      tables: { t: table },
      handlers: { t: keep },
    });
    expect(createIndexesSql(p.compiled[0]!, 2)).toEqual([
      'create index if not exists "t_g2_i1" on "t_g2" ((a + b), "id")',
    ]);
    const bad = (columns: unknown[]) => () =>
      defineProjection({
        name: 'sums',
        version: 1,
        eventTypes: ['X'],
        tables: { t: { ...table, indexes: [{ columns }] } as never },
        handlers: { t: keep },
      });
    expect(bad([{ expression: 'a + c', of: ['a', 'c'] }])).toThrow(ProjectionDefinitionError);
    expect(bad([{ expression: "a + 1; drop table t; --'", of: ['a'] }])).toThrow(ProjectionDefinitionError);
    expect(bad([{ expression: 'a + b', of: [] }])).toThrow(ProjectionDefinitionError);
  });

  it('hashes the tables, not the generation or handlers', () => {
    expect(tallyProjection('a', 't').ddlHash).toBe(tallyProjection('b', 't').ddlHash);
    expect(tallyProjection('a', 't', 2).ddlHash).not.toBe(tallyProjection('a', 't').ddlHash);
  });

  const id = { columns: { id: 'text' }, primaryKey: ['id'] };
  it.each([
    ['a bad name', { name: 'Bad Name' }],
    ['version 0', { version: 0 }],
    ['an empty eventTypes', { eventTypes: [] }],
    ['an unknown column type', { tables: { t: { columns: { id: 'varchar' }, primaryKey: ['id'] } } }],
    ['a key that is not a column', { tables: { t: { ...id, primaryKey: ['nope'] } } }],
    ['a nullable key', { tables: { t: { ...id, columns: { id: { type: 'text', nullable: true } } } } }],
    ['a table name with quotes', { tables: { 't"x': id }, handlers: { 't"x': keep } }],
    ['handlers without a table', { handlers: { t: keep, u: keep } }],
  ])('refuses %s', (_what, override) => {
    const definition = { name: 'ok', version: 1, tables: { t: id }, handlers: { t: keep }, ...override };
    expect(() => defineProjection(definition as never)).toThrow(ProjectionDefinitionError);
  });
});
