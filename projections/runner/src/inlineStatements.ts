import type { Statement } from './batchStatements.js';

/**
 * Statements as one text for the simple query protocol, which runs several statements in one round
 * trip (the extended protocol, with parameters, takes one each). Each `$n` becomes its value as a
 * dollar-quoted literal: taken verbatim by PostgreSQL (no escaping of quotes or backslashes, so a
 * value comes back exactly as the parameter would), under a tag the value does not contain. The
 * statements' own casts (`$1::json`) type the literals as they typed the parameters.
 */
export function inlineStatements(statements: readonly (Statement | string)[]): string {
  return statements.map((s) => (typeof s === 'string' ? s : inlineValues(s))).join(';\n');
}

export function inlineValues(statement: Statement): string {
  return statement.text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= statement.values.length) throw new RangeError(`no value for $${n}`);
    return literal(statement.values[index]);
  });
}

/**
 * A value as PostgreSQL's text literal: null as null, a Date as ISO text, numbers, bigints and
 * strings as their text. A NUL character cannot be in a query's text (nor in a text parameter).
 */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const text = value instanceof Date ? value.toISOString() : String(value);
  if (text.includes('\0')) throw new RangeError('a NUL character cannot be inlined in a statement');
  // No `$tag` anywhere in the text: then neither is `$tag$`, nor can the text's end and the
  // closing tag make one early.
  let tag = 'v';
  for (let i = 0; text.includes(`$${tag}`); i++) tag = `v${i}`;
  return `$${tag}$${text}$${tag}$`;
}
