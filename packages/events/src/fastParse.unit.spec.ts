import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { eventCatalog } from './catalog.js';
import { compileFastParser, UNSURE } from './fastParse.js';
import { eventDataArbitraries, eventExamples } from './testing/index.js';

type Data = Record<string, unknown>;
const definitions = Object.values(eventCatalog.definitions) as { type: string; schema: z.ZodType }[];

/** Values near the schemas' edges: lengths, bounds, integers, timestamps, JSON and not JSON. */
const oddValue = fc.oneof(
  fc.anything(),
  fc.jsonValue(),
  fc.string({ maxLength: 300 }),
  fc.constantFrom(
    '',
    'x',
    '\ud83d\ude00',
    '\ud800',
    'a'.repeat(128),
    'a'.repeat(129),
    'a'.repeat(256),
    'a'.repeat(257),
    '😀'.repeat(129),
    '2026-11-21T08:00:00Z',
    '2026-11-21T08:00:00.123456+01:00',
    '2026-02-29T08:00:00Z',
    '2026-11-21 08:00:00Z',
    '2026-11-21T08:00:00',
    'success',
    'failed',
    'production',
    'dev',
    'completed',
  ),
  fc.constantFrom(0, -0, 1, -1, 1.5, 599, 600, 2 ** 53, 2 ** 53 - 1, 1e300, Number.NaN, Infinity),
  fc.constantFrom(null, undefined, true, false, [], {}, { __proto__: null }, JSON.parse('{"__proto__":1}')),
  fc.constantFrom(
    new Date(0),
    Object.defineProperty({}, '__proto__', { value: 'x', enumerable: false }),
    Object.defineProperty({ a: 'b' }, 'hidden', { value: 'x', enumerable: false }),
    { [Symbol('s')]: 'a' },
    { '': 'x' },
    { a: 'b', '1': 'c' },
    { a: 1 },
    { a: { b: [1, 'c', null] } },
    { a: undefined },
  ),
);

/** Every path of the value's objects (to depth 3). */
function pathsOf(value: unknown, prefix: string[] = [], depth = 0): string[][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth > 3) return [];
  return Object.keys(value).flatMap((k) => [
    [...prefix, k],
    ...pathsOf((value as Data)[k], [...prefix, k], depth + 1),
  ]);
}

/** Sets (or deletes) the value at a path of a deep copy; a path may also be a new key. */
function changed(data: Data, path: readonly string[], value: unknown, remove: boolean): Data {
  const copy = structuredClone(data);
  let at: Data = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Data;
  const last = path.at(-1) as string;
  if (remove) delete at[last];
  else at[last] = value;
  return copy;
}

const mutated = (arbitrary: fc.Arbitrary<unknown>) =>
  arbitrary.chain((data) => {
    const paths = [...pathsOf(data), ['extra'], ['usage', 'extra']];
    const change = fc.tuple(fc.constantFrom(...paths), oddValue, fc.boolean());
    return fc.array(change, { minLength: 1, maxLength: 3 }).map((changes) => {
      let out = data as Data;
      for (const [path, value, remove] of changes) {
        try {
          out = changed(out, path, value, remove);
        } catch {
          // a path through a value an earlier change replaced
        }
      }
      return out;
    });
  });

/** The fast result is zod's: same data, same key order; or UNSURE. */
function agrees(schema: z.ZodType, value: unknown): void {
  const fast = compileFastParser(schema)(value);
  if (fast === UNSURE) return;
  const reference = schema.safeParse(value);
  expect(reference.success).toBe(true);
  expect(fast).toStrictEqual(reference.data);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(reference.data));
}

describe('compileFastParser gives zod’s result or none', () => {
  for (const { type, schema } of definitions) {
    const arbitrary = eventDataArbitraries[
      type as keyof typeof eventDataArbitraries
    ] as fc.Arbitrary<unknown>;
    const parse = compileFastParser(schema);

    it(`${type}: valid data, unchanged`, () => {
      fc.assert(
        fc.property(arbitrary, (data) => agrees(schema, data)),
        { numRuns: 300 },
      );
    });

    it(`${type}: data changed at a few paths`, () => {
      fc.assert(
        fc.property(mutated(arbitrary), (data) => agrees(schema, data)),
        { numRuns: 1_000 },
      );
    });

    it(`${type}: not an object`, () => {
      fc.assert(fc.property(oddValue, (value) => agrees(schema, value)));
      expect(parse(Object.create(eventExamples[type as keyof typeof eventExamples]))).toBe(UNSURE);
    });
  }
});

describe('the events a rebuild reads most take the fast path', () => {
  const hot = ['LlmCallRecorded', 'SessionStarted', 'MessageReceived', 'SessionEnded'] as const;
  for (const type of hot) {
    it(type, () => {
      const schema = eventCatalog.definitions[type].schema as z.ZodType;
      const example = eventExamples[type];
      expect(compileFastParser(schema)(example)).not.toBe(UNSURE);
      agrees(schema, example);
    });
  }
});
