/**
 * The PostgreSQL column types a projection table may use, and the JS value
 * each one takes in handlers. The list is closed on purpose: every type here
 * round-trips exactly through the runner's JSON path (rows are written with
 * json_to_recordset and read back through pg's parsers with the platform
 * pool), and it keeps DDL free of arbitrary SQL. `date` and `timestamp` are
 * left out because pg turns them into local-time Dates that do not round-trip.
 */
export interface ColumnTypeMap {
  text: string;
  uuid: string;
  boolean: boolean;
  smallint: number;
  integer: number;
  /** A JS number: the platform pool parses int8 as number and throws past 2^53. */
  bigint: number;
  'double precision': number;
  /** Exact decimal, as pg returns it: a string. */
  numeric: string;
  timestamptz: Date;
  jsonb: unknown;
  'text[]': string[];
}

export type ColumnType = keyof ColumnTypeMap;

export const columnTypes: readonly ColumnType[] = [
  'text',
  'uuid',
  'boolean',
  'smallint',
  'integer',
  'bigint',
  'double precision',
  'numeric',
  'timestamptz',
  'jsonb',
  'text[]',
];

/** A column: its type (NOT NULL), or `{ type, nullable: true }`. */
export type ColumnSpec = ColumnType | { readonly type: ColumnType; readonly nullable?: boolean };

export type ColumnValue<C extends ColumnSpec> = C extends ColumnType
  ? ColumnTypeMap[C]
  : C extends { readonly type: infer T extends ColumnType; readonly nullable: true }
    ? ColumnTypeMap[T] | null
    : C extends { readonly type: infer T extends ColumnType }
      ? ColumnTypeMap[T]
      : never;

export function columnType(spec: ColumnSpec): ColumnType {
  return typeof spec === 'string' ? spec : spec.type;
}

export function columnNullable(spec: ColumnSpec): boolean {
  return typeof spec === 'string' ? false : spec.nullable === true;
}
