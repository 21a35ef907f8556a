import { reject } from './analyticsQueryError.js';
import type { AnalyticsQuery } from './queryValues.js';

export const MAX_TRACE_DIMENSIONS = 20;
export const MAX_TRACE_DIMENSION_KEY_LENGTH = 128;

// `traceDimensions[region]`; brackets may still be percent-encoded if the client encoded them twice.
const DIMENSION_PARAM = /^traceDimensions(?:\[|%5B)(.*)(?:\]|%5D)$/i;

/**
 * `traceDimensions[key]=value` parameters (spec 000 §4.2): all must match exactly. One value per key
 * (the first when repeated); values are not split on commas and not trimmed. A qs-style nested
 * `traceDimensions` object is read the same way.
 */
export function readTraceDimensions(query: AnalyticsQuery): Record<string, string> | undefined {
  const pairs = new Map<string, string>();
  const add = (key: string, value: string | undefined): void => {
    if (value !== undefined && !pairs.has(key)) pairs.set(key, value);
  };
  for (const [param, value] of Object.entries(query)) {
    const match = DIMENSION_PARAM.exec(param);
    if (match !== null) {
      add(match[1] ?? '', firstString(value));
    } else if (param === 'traceDimensions' && isPlainObject(value)) {
      for (const [key, nested] of Object.entries(value)) {
        add(key, firstString(nested));
      }
    }
  }
  if (pairs.size === 0) return undefined;
  if (pairs.size > MAX_TRACE_DIMENSIONS) {
    reject('TOO_MANY_FILTER_VALUES', `at most ${MAX_TRACE_DIMENSIONS} traceDimensions keys`, {
      parameter: 'traceDimensions',
      max: MAX_TRACE_DIMENSIONS,
      received: pairs.size,
    });
  }
  for (const key of pairs.keys()) {
    if (key === '' || key.length > MAX_TRACE_DIMENSION_KEY_LENGTH) {
      reject('INVALID_FILTER', 'a traceDimensions key must have 1 to 128 characters', {
        parameter: 'traceDimensions',
        reason: key === '' ? 'empty_key' : 'key_too_long',
      });
    }
  }
  // fromEntries defines own properties, so even a `__proto__` key stays data (and matches no row).
  return Object.fromEntries(pairs);
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.find((v): v is string => typeof v === 'string');
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
