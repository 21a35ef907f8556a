import type { PoolClient } from '@parley/platform';
import { from as copyFrom } from 'pg-copy-streams';
import type { StoredTable } from './defineProjection.js';
import { toJson } from './fold.js';

/**
 * Rows as the text format of `COPY … FROM STDIN`: a bulk insert that PostgreSQL parses column by
 * column with each type's input function, about half the server's time of `json_to_recordset`
 * (which first parses a JSON document of twice the size, keys repeated on every row; measured:
 * 10,000 ledger rows, 260 ms against 120 ms) and less to serialise here.
 *
 * Every value is written as the text that `json_to_recordset` hands the same input function, so a
 * row stored either way is the same row, and a value PostgreSQL refuses is refused either way.
 * Where that is not certain (a jsonb column holding a string, an object in a scalar column, an
 * invalid Date, NUL characters or lone surrogates, which the JSON path refuses with its own
 * errors), encodeCopyRows returns undefined and the caller takes the JSON path.
 */

type Encode = (value: unknown) => string | undefined;

/** Fewer rows go through the JSON path: COPY takes a second round trip. */
export const COPY_MIN_ROWS = 32;

const NULL = '\\N';
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escapeChar = (c: string): string => ESCAPES[c] ?? c;

/** A field of COPY's text format: backslash, tab, newline and carriage return escaped. */
export function escapeCopyText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(/[\\\t\n\r]/g, escapeChar) : s;
}

/** What JSON.stringify writes for a scalar, as the JSON path's input function receives it. */
const scalar: Encode = (value) => {
  switch (typeof value) {
    case 'string':
      return escapeCopyText(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object':
      if (value === null) return NULL;
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
      return undefined;
    default:
      return undefined;
  }
};

/** The JSON text of a structure, numbers and booleans; strings stay on the JSON path (see above). */
const jsonb: Encode = (value) => {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? String(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return NULL;
      if (value instanceof Date) return undefined;
      return escapeCopyText(toJson(value));
    default:
      return undefined;
  }
};

/** A JSON array of strings (or nulls) as an array literal; anything else as a scalar. */
const textArray: Encode = (value) => {
  if (!Array.isArray(value)) return typeof value === 'object' && value !== null ? undefined : scalar(value);
  const items: string[] = [];
  for (const item of value) {
    if (item === null) items.push('NULL');
    else if (typeof item === 'string') items.push(`"${item.replace(/["\\]/g, '\\$&')}"`);
    else return undefined;
  }
  return escapeCopyText(`{${items.join(',')}}`);
};

function encoderOf(type: string): Encode {
  if (type === 'jsonb') return jsonb;
  if (type === 'text[]') return textArray;
  return scalar;
}

const encoders = new WeakMap<StoredTable, readonly Encode[]>();

function encodersOf(table: StoredTable): readonly Encode[] {
  let found = encoders.get(table);
  if (!found) {
    found = table.columns.map((c) => encoderOf(c.type));
    encoders.set(table, found);
  }
  return found;
}

/** The rows (every column of `table`, in order) as COPY text, or undefined for the JSON path. */
export function encodeCopyRows(
  table: StoredTable,
  rows: readonly Record<string, unknown>[],
): string | undefined {
  const encode = encodersOf(table);
  const names = table.columns.map((c) => c.name);
  const lines: string[] = new Array(rows.length);
  const fields: string[] = new Array(names.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as Record<string, unknown>;
    for (let c = 0; c < names.length; c++) {
      const field = (encode[c] as Encode)(row[names[c] as string] ?? null);
      if (field === undefined) return undefined;
      fields[c] = field;
    }
    lines[r] = fields.join('\t');
  }
  const text = `${lines.join('\n')}\n`;
  // The JSON path refuses NUL (\u0000 in text) and lone surrogates with its own errors: keep them.
  return text.isWellFormed() && !text.includes('\0') ? text : undefined;
}

/** COPY of encoded rows into `physical` (a quoted table name), columns in `table`'s order. */
export async function copyRows(
  client: PoolClient,
  physical: string,
  table: StoredTable,
  text: string,
): Promise<void> {
  const columns = table.columns.map((c) => `"${c.name}"`).join(', ');
  const stream = client.query(copyFrom(`copy ${physical} (${columns}) from stdin`));
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(Buffer.from(text, 'utf8'));
  });
}
