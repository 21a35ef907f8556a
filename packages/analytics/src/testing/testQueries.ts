import fc from 'fast-check';
import type { AnalyticsQueryError, ParseResult } from '../analyticsQueryError.js';

/** Test helpers shared by the parser specs (not exported from the package). */

export const RANGE = { fromDate: '2026-03-01T00:00:00Z', toDate: '2026-03-02T00:00:00Z' } as const;

export function okFilter<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.filter;
}

export function errorOf<T>(result: ParseResult<T>): AnalyticsQueryError {
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.filter)}`);
  return result.error;
}

export const many = (count: number, prefix = 'v'): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

/** Arbitrary Fastify-style query objects, biased towards the parameter names the parsers read. */
export function queryObjects(names: readonly string[], values: readonly string[]) {
  const value = fc.oneof(
    fc.string(),
    fc.constantFrom(...values),
    fc.array(fc.oneof(fc.string(), fc.constantFrom(...values)), { maxLength: 4 }),
    fc.constant(undefined),
    fc.array(fc.constantFrom(...values), { maxLength: 3 }).map((v) => v.join(',')),
  );
  return fc.dictionary(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 20 })), value, {
    maxKeys: 12,
  });
}
