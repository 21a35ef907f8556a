import { type ParseResult, reject, runParser } from './analyticsQueryError.js';
import type { AnalyticsQuery } from './queryValues.js';

/** The parameters that are not filters: a value of the wrong type is a VALIDATION_ERROR, as on the GET. */
const NON_FILTER_PARAMS = new Set(['fromDate', 'toDate', 'limit', 'offset', 'sortBy', 'sortOrder']);
/** The list's filters (spec 000 §4.2); any other field is ignored, as unknown query parameters are. */
const FILTER_PARAMS = new Set([
  'sessionIds',
  'containmentType',
  'environment',
  'channelUId',
  'callerNumber',
  'channel',
  'status',
]);
const isKnown = (name: string): boolean =>
  NON_FILTER_PARAMS.has(name) || FILTER_PARAMS.has(name) || /^traceDimensions(?:\[|%5B)/i.test(name);

type Scalar = string | undefined;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON scalar as the query string would carry it; undefined for null; a type error otherwise. */
function scalar(name: string, value: unknown): Scalar {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (value === null) return undefined;
  return wrongType(name);
}

function wrongType(name: string): never {
  const message = `${name} must be a string, a number or an array of them`;
  // The value is never echoed: it may be a caller number (spec 000 §4.2 callerNumber rule 7).
  if (NON_FILTER_PARAMS.has(name))
    reject('VALIDATION_ERROR', message, { parameter: name, reason: 'invalid_type' });
  reject('INVALID_FILTER', message, { parameter: name, reason: 'invalid_type' });
}

/** One field: a scalar is one value, an array is the parameter repeated (each entry a scalar). */
function fieldValues(name: string, value: unknown): string | string[] | undefined {
  if (!Array.isArray(value)) return scalar(name, value);
  const values = value.map((v) => scalar(name, v)).filter((v): v is string => v !== undefined);
  return values.length === 0 ? undefined : values;
}

/** `traceDimensions`: dimension name → value, the nested form the GET parser also reads. */
function dimensions(value: unknown): Record<string, string | string[]> | undefined {
  if (value === null) return undefined;
  if (!isPlainObject(value)) return wrongType('traceDimensions');
  const pairs: Record<string, string | string[]> = Object.create(null);
  for (const [key, nested] of Object.entries(value)) {
    const values = fieldValues('traceDimensions', nested);
    if (values !== undefined) pairs[key] = values;
  }
  return pairs;
}

/**
 * The body of `POST /api/public/analytics/projects/{projectId}/sessions/search` as the query the
 * GET list reads (docs/api.md): every field is the query parameter of the same name, a JSON array
 * standing for the parameter repeated, numbers for their decimal text, null for an absent field,
 * `traceDimensions` an object of dimension name to value. Unknown fields are ignored, as unknown
 * query parameters are. The result goes through parseSessionListQuery, so both routes share one
 * validation, one set of codes and one filter.
 *
 * Refused: a body that is not a JSON object, and a field of another type (an object, a boolean),
 * with VALIDATION_ERROR for the dates, paging and sort, INVALID_FILTER for the filters.
 */
export function sessionSearchQuery(body: unknown): ParseResult<AnalyticsQuery> {
  return runParser(() => {
    if (body === undefined || body === null) return {};
    if (!isPlainObject(body)) {
      reject('VALIDATION_ERROR', 'the body must be a JSON object of the list filters', {
        reason: 'invalid_body',
      });
    }
    const query: Record<string, unknown> = Object.create(null);
    for (const [name, value] of Object.entries(body)) {
      if (name !== 'traceDimensions' && !isKnown(name)) continue;
      const values = name === 'traceDimensions' ? dimensions(value) : fieldValues(name, value);
      if (values !== undefined) query[name] = values;
    }
    // The nested traceDimensions is read by the parser as a qs-style object (readTraceDimensions).
    return query as AnalyticsQuery;
  });
}
