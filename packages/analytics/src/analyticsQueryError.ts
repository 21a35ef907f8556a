/**
 * A rejected analytics request (spec 000 §7, "Analytics APIs"). The route layer turns it into the
 * analytics error envelope; `details` never holds a caller number (spec 000 §4.2 callerNumber rule 7).
 */
export type AnalyticsErrorCode =
  | 'INVALID_CONTAINMENT_TYPE'
  | 'INVALID_ENVIRONMENT'
  | 'INVALID_STATUS'
  | 'TOO_MANY_FILTER_VALUES'
  | 'INVALID_CALLER_NUMBER'
  | 'INVALID_FILTER'
  | 'CALLER_NUMBER_LOOKUP_DISABLED'
  // Not an analytics code of the spec: the platform-wide 400 code (spec 000 §7) for parameters that are
  // not filters (dates, limit, offset, sort, dataMode) and for a missing date range. See README "Decisions".
  | 'VALIDATION_ERROR';

export interface AnalyticsQueryError {
  status: 400 | 403;
  code: AnalyticsErrorCode;
  message: string;
  details: Record<string, unknown>;
}

export type ParseResult<T> = { ok: true; filter: T } | { ok: false; error: AnalyticsQueryError };

/** Thrown inside the parsers only, caught at their top so callers always get a ParseResult. */
export class QueryRejection extends Error {
  readonly error: AnalyticsQueryError;
  constructor(error: AnalyticsQueryError) {
    super(error.message);
    this.name = 'QueryRejection';
    this.error = error;
  }
}

export function reject(
  code: AnalyticsErrorCode,
  message: string,
  details: Record<string, unknown>,
  status: 400 | 403 = 400,
): never {
  throw new QueryRejection({ status, code, message, details });
}

/** Runs a parser body and turns a QueryRejection into `{ ok: false }`; anything else is a bug and propagates. */
export function runParser<T>(body: () => T): ParseResult<T> {
  try {
    return { ok: true, filter: body() };
  } catch (err) {
    if (err instanceof QueryRejection) return { ok: false, error: err.error };
    throw err;
  }
}

/** Echo an invalid enumerated value back, bounded so a huge value does not bloat the error body. */
export function echo(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}…` : value;
}
