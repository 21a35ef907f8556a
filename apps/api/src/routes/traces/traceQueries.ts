import { TRACE_EVENT_TYPES, type TraceEventType } from '@parley/events';
import { HttpError } from '@parley/http';

/**
 * Query parsing of the trace APIs, after authentication (the routes use `validation: 'document'`
 * so that an unauthenticated caller learns nothing about its parameters). Errors are 400 in the
 * standard envelope: INVALID_SESSION_ID (spec 000 §8), INVALID_EVENT_TYPE, INVALID_FORMAT, and
 * VALIDATION_ERROR for the rest; the message names the parameter, never echoes its value.
 */

/** Spec 000 §8: default 50, max 200 for "other list endpoints". */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;
export const MAX_SESSION_IDS = 10_000;
export const MAX_FILTER_VALUES = 100;

type Raw = string | string[] | undefined;
export type RawQuery = Record<string, Raw>;

const invalid = (parameter: string, rule: string) =>
  new HttpError('VALIDATION_ERROR', 400, `querystring.${parameter}: ${rule}`);

/** A comma-separated and/or repeated parameter: its non-empty values, deduplicated; undefined if absent. */
export function multi(query: RawQuery, parameter: string, max = MAX_FILTER_VALUES): string[] | undefined {
  const raw = query[parameter];
  if (raw === undefined) return undefined;
  const values = [raw]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim());
  if (values.some((v) => v.length === 0 || v.length > 256)) {
    throw invalid(parameter, 'each value must be 1..256 characters');
  }
  if (values.length > max) throw invalid(parameter, `at most ${max} values`);
  return [...new Set(values)];
}

/** A single-valued parameter (the first when repeated). */
export function single(query: RawQuery, parameter: string): string | undefined {
  const raw = query[parameter];
  return Array.isArray(raw) ? raw[0] : raw;
}

function integer(query: RawQuery, parameter: string, fallback: number, min: number, max: number): number {
  const raw = single(query, parameter);
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw invalid(parameter, `integer ${min}..${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw invalid(parameter, `integer ${min}..${max}`);
  return value;
}

export function paging(query: RawQuery): { limit: number; offset: number } {
  return {
    limit: integer(query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT),
    offset: integer(query, 'offset', 0, 0, 999_999_999),
  };
}

export function eventTypes(query: RawQuery): TraceEventType[] | undefined {
  const values = multi(query, 'eventType');
  if (values === undefined) return undefined;
  for (const value of values) {
    if (!(TRACE_EVENT_TYPES as readonly string[]).includes(value)) {
      throw new HttpError(
        'INVALID_EVENT_TYPE',
        400,
        `eventType must be one or more of ${TRACE_EVENT_TYPES.join(', ')}`,
      );
    }
  }
  return values as TraceEventType[];
}

const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** An ISO 8601 date or date-time (no zone means UTC). */
export function date(query: RawQuery, parameter: string): Date | undefined {
  const raw = single(query, parameter);
  if (raw === undefined) return undefined;
  const zoned = /T/.test(raw) && !/(Z|[+-]\d{2}:\d{2})$/.test(raw) ? `${raw}Z` : raw;
  const value = new Date(zoned);
  if (!DATE.test(raw) || Number.isNaN(value.getTime()))
    throw invalid(parameter, 'an ISO 8601 date or date-time');
  return value;
}

export function dateRange(query: RawQuery): { from?: Date; to?: Date } {
  const from = date(query, 'fromDate');
  const to = date(query, 'toDate');
  if (from !== undefined && to !== undefined && from.getTime() >= to.getTime()) {
    throw invalid('toDate', 'must be after fromDate');
  }
  return { ...(from && { from }), ...(to && { to }) };
}

/** `include`: only `metrics` is known. */
export function includesMetrics(query: RawQuery): boolean {
  const values = multi(query, 'include');
  if (values === undefined) return false;
  if (values.some((v) => v !== 'metrics')) throw invalid('include', 'the only value is metrics');
  return true;
}

/** Spec 000 §8: a session id is 1..256 characters. */
export function sessionIdOf(params: { sessionId?: string }): string {
  const id = params.sessionId ?? '';
  if (id.length < 1 || id.length > 256) {
    throw new HttpError('INVALID_SESSION_ID', 400, 'sessionId must be 1..256 characters');
  }
  return id;
}
