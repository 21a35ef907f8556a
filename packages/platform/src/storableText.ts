/**
 * Text PostgreSQL cannot store. A `text` column refuses U+0000 (22021 "invalid byte sequence for
 * encoding UTF8: 0x00"); `jsonb` refuses the `\u0000` escape (22P05 "unsupported Unicode escape
 * sequence") and the `\udXXX` escape of a UTF-16 surrogate without its pair (22P02 "invalid input
 * syntax for type json"), which is how JSON.stringify writes one. A lone surrogate in a `text`
 * parameter is silently turned into U+FFFD by the driver's UTF-8 encoding: stored, but not what was
 * sent. Every boundary checks for these (docs/decisions.md "Text PostgreSQL cannot store").
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what is looked for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

/** What the 400 VALIDATION_ERROR of such text says after the field's name (never the value). */
export const UNSTORABLE_TEXT_MESSAGE =
  'contains text that cannot be stored (U+0000 or an unpaired surrogate)';

/** What replaces each unstorable character where text is kept rather than refused: U+FFFD. */
export const REPLACEMENT_CHARACTER = '\ufffd';

export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text);

/** The text with every U+0000 and unpaired surrogate replaced by U+FFFD. */
export const toStorableText = (text: string): string => text.replace(UNSTORABLE_ALL, REPLACEMENT_CHARACTER);

export type TextPath = ReadonlyArray<string | number>;

/** A path as a chain to its parent: pushing a child costs nothing however deep the value is. */
interface PathLink {
  parent: PathLink | undefined;
  key: string | number;
}

interface Visit {
  value: unknown;
  link: PathLink | undefined;
}

function pathOf(link: PathLink | undefined): TextPath {
  const path: Array<string | number> = [];
  for (let at = link; at !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Where the first string (an object key or a string value, at any depth) that PostgreSQL cannot
 * store is, as its path from `value`; undefined when there is none. Iterative, so a deeply nested
 * body cannot overflow the stack.
 */
export function findUnstorableText(value: unknown): TextPath | undefined {
  // The usual value has none: a walk that builds no paths says so; only a value with some (or a
  // very deep one) is walked again to say where.
  if (isAllStorable(value, 0)) return undefined;
  const stack: Visit[] = [{ value, link: undefined }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value: current, link } = visit;
    if (typeof current === 'string') {
      if (!isStorableText(current)) return pathOf(link);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i -= 1)
        stack.push({ value: current[i], link: { parent: link, key: i } });
    } else if (isPlainObject(current)) {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, child] = entries[i]!;
        if (!isStorableText(key)) return pathOf({ parent: link, key });
        stack.push({ value: child, link: { parent: link, key } });
      }
    }
  }
  return undefined;
}

/** Depth at which isAllStorable gives up (false), leaving the value to the iterative walk. */
const QUICK_DEPTH = 64;

/** Whether every string of the value (keys included) is storable, as findUnstorableText looks. */
function isAllStorable(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return isStorableText(value);
  if (depth >= QUICK_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) if (!isAllStorable(value[i], depth + 1)) return false;
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      if (!isStorableText(key) || !isAllStorable(value[key], depth + 1)) return false;
    }
  }
  return true;
}

/**
 * A copy of a JSON-like value with every unstorable character of its strings (keys included)
 * replaced by U+FFFD, and the paths that changed (dotted; empty when nothing did, and then
 * `value` is the very value given). For text that must not be lost (a platform's message).
 */
export function replaceUnstorableText<T>(value: T): { value: T; replaced: string[] } {
  if (findUnstorableText(value) === undefined) return { value, replaced: [] };
  const replaced: string[] = [];
  const copy = (current: unknown, path: TextPath): unknown => {
    if (typeof current === 'string') {
      if (isStorableText(current)) return current;
      replaced.push(dottedPath(path));
      return toStorableText(current);
    }
    if (Array.isArray(current)) return current.map((item, i) => copy(item, [...path, i]));
    if (!isPlainObject(current)) return current;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(current)) {
      const storableKey = toStorableText(key);
      if (storableKey !== key) replaced.push(dottedPath([...path, storableKey]));
      out[storableKey] = copy(child, [...path, storableKey]);
    }
    return out;
  };
  return { value: copy(value, []) as T, replaced };
}

/** `a.b.0.c` (the form of VALIDATION_ERROR messages and ingest issue paths). */
export const dottedPath = (path: TextPath): string => path.map(String).join('.');

/**
 * An object whose own enumerable keys hold its data: JSON objects, and also the null-prototype
 * objects Fastify parses query strings and path parameters into. Not bytes or dates.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !ArrayBuffer.isView(value) &&
    !(value instanceof Date)
  );
}

/**
 * Whether an error (or one of its causes) is PostgreSQL refusing text it cannot store: 22021, 22P05,
 * or 22P02 from the JSON parser (a `\udXXX` escape of an unpaired surrogate). The backstop of the
 * one error mapper: such an error is the request's fault, never the server's.
 */
export function isUnstorableTextError(error: unknown): boolean {
  for (let current = error, depth = 0; depth < 8; depth += 1) {
    if (typeof current !== 'object' || current === null) return false;
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === '22021' || code === '22P05') return true;
    if (code === '22P02' && typeof message === 'string' && message.includes('type json')) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
