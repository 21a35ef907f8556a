import type { z } from 'zod';
import { dimensionsSchema, jsonObjectSchema, jsonValueSchema, plainJsonCopy } from './schemas/common.js';

/** What a fast parser returns when it cannot vouch for the value: the schema must judge it. */
export const UNSURE: unique symbol = Symbol('unsure');

/**
 * A value checked and copied the way the schema would return it, or UNSURE. Never a different
 * result: where the schema would succeed the parser returns its output or UNSURE, and where the
 * schema would fail it returns UNSURE.
 */
export type FastParser = (value: unknown) => unknown;

/** The zod internals read here (zod 4's `_zod.def`). */
interface Def {
  type: string;
  coerce?: boolean;
  format?: string;
  pattern?: RegExp;
  checks?: readonly { _zod: { def: CheckDef } }[];
  shape?: Record<string, z.ZodType>;
  catchall?: unknown;
  innerType?: z.ZodType;
  entries?: Record<string, unknown>;
  values?: readonly unknown[];
}

interface CheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  inclusive?: boolean;
  format?: string;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const never: FastParser = () => UNSURE;

/**
 * A fast parser for the common shapes of the event schemas: objects (unknown keys stripped, keys
 * in the shape's order), optional fields, strings with length bounds or a pattern format (the ISO
 * timestamps), finite numbers with integer and bound checks, booleans, enums, literals, the JSON
 * values and objects and the dimensions. Any other schema (other records, unions, arrays, transforms…) compiles to a parser that
 * is always UNSURE, so a value using it goes to zod. Each event is validated by its reader
 * (projections, a rebuild); zod's per-field bookkeeping was a fifth of a rebuild's CPU (issue 21).
 * The property test (fastParse.unit.spec.ts) holds every catalog schema to zod's result.
 */
export function compileFastParser(schema: z.ZodType): FastParser {
  if (schema === jsonValueSchema) return jsonValue;
  if (schema === jsonObjectSchema) return jsonObject;
  if (schema === dimensionsSchema) return dimensions;
  const def = defOf(schema);
  if (def.coerce) return never;
  switch (def.type) {
    case 'object':
      return objectParser(def);
    case 'string':
      return stringParser(def);
    case 'number':
      return numberParser(def);
    case 'boolean':
      return def.checks?.length ? never : (v) => (typeof v === 'boolean' ? v : UNSURE);
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}).filter((v) => typeof v === 'string'));
      return (v) => (typeof v === 'string' && values.has(v) ? v : UNSURE);
    }
    case 'literal': {
      const values = new Set((def.values ?? []).filter((v) => typeof v === 'string'));
      return (v) => (typeof v === 'string' && values.has(v) ? v : UNSURE);
    }
    default:
      return never;
  }
}

const jsonValue: FastParser = (v) => plainJsonCopy(v, 0) ?? UNSURE;

/** A plain object without a `__proto__` key of its own (the records' preprocess refuses one). */
const plainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' &&
  v !== null &&
  Object.getPrototypeOf(v) === Object.prototype &&
  !Object.hasOwn(v, '__proto__') &&
  Object.getOwnPropertySymbols(v).length === 0;

/** jsonObjectSchema: a record of JSON values, each a copy. */
const jsonObject: FastParser = (v) => (plainObject(v) ? (plainJsonCopy(v, 0) ?? UNSURE) : UNSURE);

/** dimensionsSchema: a record of strings under non-empty keys. */
const dimensions: FastParser = (v) => {
  if (!plainObject(v)) return UNSURE;
  const out: Record<string, string> = {};
  for (const key of Object.keys(v)) {
    const value = v[key];
    if (key.length === 0 || typeof value !== 'string') return UNSURE;
    out[key] = value;
  }
  return out;
};

interface Field {
  readonly key: string;
  readonly optional: boolean;
  readonly parse: FastParser;
}

function objectParser(def: Def): FastParser {
  if (def.catchall !== undefined || def.checks?.length || !def.shape) return never;
  const fields: Field[] = [];
  for (const [key, field] of Object.entries(def.shape)) {
    if (key === '__proto__') return never;
    const fieldDef = defOf(field);
    const optional = fieldDef.type === 'optional' && fieldDef.innerType !== undefined;
    if (optional && fieldDef.checks?.length) return never;
    const parse = compileFastParser(optional ? (fieldDef.innerType as z.ZodType) : field);
    if (parse === never && !optional) return never;
    fields.push({ key, optional, parse });
  }
  return generatedObjectParser(fields);
}

/**
 * The object parser as generated code, like zod's own: each field read with a constant key, so
 * that every read site stays monomorphic (a loop over the keys was most of the parser's time).
 */
function generatedObjectParser(fields: readonly Field[]): FastParser {
  const lines = fields.map(({ key, optional }, i) => {
    const k = JSON.stringify(key);
    return `if (${k} in input) {
      v = input[${k}];
      if (v === undefined) return U; // zod keeps an optional key holding undefined: its call
      r = p${i}(v);
      if (r === U) return U;
      out[${k}] = r;
    }${optional ? '' : ' else return U;'}`;
  });
  const body = `${fields.map((_, i) => `const p${i} = p[${i}];`).join(' ')}
  return function parseObject(input) {
    if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype) return U;
    const out = {};
    let v, r;
    ${lines.join('\n')}
    return out;
  };`;
  const make = new Function('U', 'p', body) as (u: typeof UNSURE, p: readonly FastParser[]) => FastParser;
  return make(
    UNSURE,
    fields.map((f) => f.parse),
  );
}

function stringParser(def: Def): FastParser {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === 'min_length' && typeof c.minimum === 'number') min = Math.max(min, c.minimum);
    else if (c.check === 'max_length' && typeof c.maximum === 'number') max = Math.min(max, c.maximum);
    else return never;
  }
  let pattern: RegExp | undefined;
  if (def.format !== undefined) {
    if (def.format !== 'datetime' || !(def.pattern instanceof RegExp)) return never;
    // A copy without global or sticky state: test() must not depend on earlier calls.
    pattern = new RegExp(def.pattern.source, def.pattern.flags.replace(/[gy]/g, ''));
  }
  // zod counts code points where UTF-16 units would not decide: units >= 2 × min (or min <= 1) and
  // units <= max decide alike, anything else is left to zod.
  const leastUnits = min <= 1 ? min : 2 * min;
  return (v) => {
    if (typeof v !== 'string' || v.length < leastUnits || v.length > max) return UNSURE;
    if (pattern && !pattern.test(v)) return UNSURE;
    return v;
  };
}

function numberParser(def: Def): FastParser {
  if (def.format !== undefined && def.format !== 'safeint') return never;
  const integer = def.format === 'safeint';
  const bounds: ((n: number) => boolean)[] = [];
  for (const check of def.checks ?? []) {
    const { check: kind, value, inclusive } = check._zod.def;
    if (typeof value !== 'number') return never;
    if (kind === 'greater_than') bounds.push(inclusive ? (n) => n >= value : (n) => n > value);
    else if (kind === 'less_than') bounds.push(inclusive ? (n) => n <= value : (n) => n < value);
    else return never;
  }
  return (v) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return UNSURE;
    if (integer && !Number.isSafeInteger(v)) return UNSURE;
    for (const within of bounds) if (!within(v)) return UNSURE;
    return v;
  };
}
