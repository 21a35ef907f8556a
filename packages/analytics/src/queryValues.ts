import { reject } from './analyticsQueryError.js';

/**
 * A Fastify-style query object: repeated parameters arrive as arrays. Values of any other runtime
 * type (a qs-style nested object, a number from a custom parser) are ignored, never trusted.
 */
export type AnalyticsQuery = Readonly<Record<string, string | string[] | undefined>>;

/** Every raw value of one parameter, in order; undefined when it is absent. */
export function rawValues(query: AnalyticsQuery, name: string): string[] | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const value: unknown = query[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) {
    const strings = value.filter((v): v is string => typeof v === 'string');
    return strings.length === 0 ? undefined : strings;
  }
  return undefined;
}

/** A single-valued parameter: the first value, trimmed; empty counts as absent. */
export function firstValue(query: AnalyticsQuery, name: string): string | undefined {
  const first = rawValues(query, name)?.[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

/** A multi-valued parameter: comma-separated and/or repeated, every entry trimmed (empties kept). */
export function listValues(query: AnalyticsQuery, name: string): string[] | undefined {
  const values = rawValues(query, name);
  if (values === undefined) return undefined;
  return values.flatMap((v) => v.split(',')).map((v) => v.trim());
}

export function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Rejects more than `max` entries (counted before duplicates merge) with TOO_MANY_FILTER_VALUES. */
export function limitCount(name: string, values: readonly string[], max: number): void {
  if (values.length > max) {
    reject('TOO_MANY_FILTER_VALUES', `${name} accepts at most ${max} values`, {
      parameter: name,
      max,
      received: values.length,
    });
  }
}

/** Rejects empty entries with INVALID_FILTER (spec 000 §4.3: "empty gives 400 INVALID_FILTER"). */
export function refuseEmpty(name: string, values: readonly string[]): void {
  if (values.some((v) => v === '')) {
    reject('INVALID_FILTER', `${name} must not be empty`, { parameter: name, reason: 'empty' });
  }
}

/** Values of an exact-match list filter: no empties, at most `max`, duplicates merged. */
export function exactList(query: AnalyticsQuery, name: string, max: number): string[] | undefined {
  const values = listValues(query, name);
  if (values === undefined) return undefined;
  limitCount(name, values, max);
  refuseEmpty(name, values);
  return distinct(values);
}

export const MAX_SESSION_IDS = 10_000;

/** sessionIds (spec 000 §4.2, §4.3): up to 10,000, empty entries skipped (`a,b,` is two ids). */
export function sessionIdList(query: AnalyticsQuery): string[] | undefined {
  const values = listValues(query, 'sessionIds')?.filter((v) => v !== '');
  if (values === undefined || values.length === 0) return undefined;
  limitCount('sessionIds', values, MAX_SESSION_IDS);
  return distinct(values);
}

export const MAX_CHANNELS = 50;
export const MAX_CHANNEL_LENGTH = 128;

/** channel (spec 000 §4.2, §8): up to 50 distinct values of 1..128 characters. */
export function channelValues(query: AnalyticsQuery): string[] | undefined {
  const values = listValues(query, 'channel');
  if (values === undefined) return undefined;
  const unique = distinct(values);
  limitCount('channel', unique, MAX_CHANNELS);
  refuseEmpty('channel', unique);
  if (unique.some((v) => v.length > MAX_CHANNEL_LENGTH)) {
    reject('INVALID_FILTER', `channel values are at most ${MAX_CHANNEL_LENGTH} characters`, {
      parameter: 'channel',
      reason: 'too_long',
      maxLength: MAX_CHANNEL_LENGTH,
    });
  }
  return unique;
}
