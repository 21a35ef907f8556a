import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { exactJsonValueSchema, jsonValueSchema } from './common.js';

class Point {
  x = 1;
}
const cyclic: Record<string, unknown> = { a: 1 };
cyclic.self = cyclic;
const hidden = { a: 1 };
Object.defineProperty(hidden, 'hidden', { value: 2, enumerable: false });
let deep: unknown = 1;
for (let i = 0; i < 100; i++) deep = { d: [deep] };

const values: unknown[] = [
  'x',
  1,
  -0,
  1.5,
  true,
  null,
  [],
  {},
  [1, 'a', null, { b: [true] }],
  { a: { b: { c: [1, 2, { d: 'e' }] } } },
  { '1': 'a', b: 2, '0': 'c' },
  Number.NaN,
  Number.POSITIVE_INFINITY,
  undefined,
  { a: undefined },
  [undefined],
  // biome-ignore lint/suspicious/noSparseArray: a hole is not JSON
  [1, , 3],
  JSON.parse('{"__proto__": 1}'),
  JSON.parse('{"a": [{"__proto__": {"b": 1}}]}'),
  new Date(0),
  new Point(),
  new Map(),
  { [Symbol('s')]: 1, a: 1 },
  cyclic,
  hidden,
  deep,
  Object.create(null),
  Object.assign(Object.create(null), { z: 1 }),
  () => 1,
  10n,
  { a: { b: Number.NaN } },
];

const outcome = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? { data: result.data } : { issues: result.error.issues };
};

describe('jsonValueSchema', () => {
  it('accepts, copies and refuses exactly as the exact schema does, with the same issues', () => {
    const inObject = z.object({ field: jsonValueSchema.optional() });
    const exactInObject = z.object({ field: exactJsonValueSchema.optional() });
    for (const [i, value] of values.entries()) {
      const alone = [outcome(jsonValueSchema, value), outcome(exactJsonValueSchema, value)];
      expect(isDeepStrictEqual(alone[0], alone[1]), `value ${i}`).toBe(true);
      const nested = [outcome(inObject, { field: value }), outcome(exactInObject, { field: value })];
      expect(isDeepStrictEqual(nested[0], nested[1]), `value ${i} in an object`).toBe(true);
    }
  });

  it('returns a copy, not the value it was given', () => {
    const value = { a: [{ b: 1 }] };
    const parsed = jsonValueSchema.parse(value) as typeof value;
    expect(parsed).toEqual(value);
    expect(parsed).not.toBe(value);
    expect(parsed.a).not.toBe(value.a);
  });
});
