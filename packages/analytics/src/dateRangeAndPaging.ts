import { reject } from './analyticsQueryError.js';
import { DATA_MODES, type DataMode, SORT_DIRECTIONS, type SortDirection } from './filters.js';
import { parseIsoDate } from './parseIsoDate.js';
import { type AnalyticsQuery, firstValue } from './queryValues.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 10_000;

/** fromDate (inclusive) and toDate (exclusive); each optional here, the parsers decide what is required. */
export function readDateRange(query: AnalyticsQuery): { from?: Date; to?: Date } {
  const from = readDate(query, 'fromDate');
  const to = readDate(query, 'toDate');
  if (from !== undefined && to !== undefined && from.getTime() > to.getTime()) {
    reject('VALIDATION_ERROR', 'fromDate must not be after toDate', {
      parameter: 'fromDate',
      reason: 'after_toDate',
    });
  }
  return { ...(from && { from }), ...(to && { to }) };
}

function readDate(query: AnalyticsQuery, name: 'fromDate' | 'toDate'): Date | undefined {
  const value = firstValue(query, name);
  if (value === undefined) return undefined;
  const date = parseIsoDate(value);
  if (date === undefined) {
    reject('VALIDATION_ERROR', `${name} must be an ISO 8601 date or date-time`, {
      parameter: name,
      reason: 'invalid_date',
    });
  }
  return date;
}

export function requireDates(
  range: { from?: Date; to?: Date },
  alternative?: string,
): { from: Date; to: Date } {
  const { from, to } = range;
  if (from !== undefined && to !== undefined) return { from, to };
  const missing = [from === undefined && 'fromDate', to === undefined && 'toDate'].filter(
    (name): name is string => name !== false,
  );
  const required =
    alternative === undefined ? 'fromDate and toDate' : `fromDate and toDate, or ${alternative}`;
  return reject('VALIDATION_ERROR', `${required} required`, {
    reason: 'missing_required',
    missing,
    required,
  });
}

/** limit 1..10000 (default 100) and offset >= 0 (default 0), decimal integers. */
export function readPaging(query: AnalyticsQuery): { limit: number; offset: number } {
  const limit = readInteger(query, 'limit', DEFAULT_LIMIT);
  if (limit < 1 || limit > MAX_LIMIT) {
    reject('VALIDATION_ERROR', `limit must be an integer from 1 to ${MAX_LIMIT}`, {
      parameter: 'limit',
      min: 1,
      max: MAX_LIMIT,
    });
  }
  const offset = readInteger(query, 'offset', 0);
  return { limit, offset };
}

function readInteger(query: AnalyticsQuery, name: 'limit' | 'offset', fallback: number): number {
  const value = firstValue(query, name);
  if (value === undefined) return fallback;
  const number = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    reject('VALIDATION_ERROR', `${name} must be a non-negative integer`, {
      parameter: name,
      reason: 'not_an_integer',
    });
  }
  return number;
}

/** One of a fixed set of values, case-sensitive, first value only; VALIDATION_ERROR otherwise. */
export function readChoice<T extends string>(
  query: AnalyticsQuery,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const value = firstValue(query, name);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    reject('VALIDATION_ERROR', `${name} must be one of ${allowed.join(', ')}`, { parameter: name, allowed });
  }
  return value as T;
}

export function readDataMode(query: AnalyticsQuery): DataMode {
  return readChoice(query, 'dataMode', DATA_MODES, 'summary');
}

/** The names of the two sort parameters, shared by the ledger and the session list. */
export const SORT_PARAMS = { sortBy: 'sortBy', sortOrder: 'sortOrder' } as const;

/**
 * `sortBy` (one of `fields`, default `fallback`) and `sortOrder` (`asc` | `desc`, default `desc`):
 * the ledger's and the session list's sort, a bad value of either a VALIDATION_ERROR naming it.
 */
export function readSort<F extends string>(
  query: AnalyticsQuery,
  fields: readonly F[],
  fallback: F,
): { field: F; direction: SortDirection } {
  return {
    field: readChoice(query, SORT_PARAMS.sortBy, fields, fallback),
    direction: readChoice(query, SORT_PARAMS.sortOrder, SORT_DIRECTIONS, 'desc'),
  };
}
