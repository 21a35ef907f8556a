import { echo, type ParseResult, reject, runParser } from './analyticsQueryError.js';
import { callerNumberKey } from './callerNumberKey.js';
import { expandChannels } from './channelFamilies.js';
import { readDateRange, readPaging, readSort, requireDates } from './dateRangeAndPaging.js';
import { SESSION_SORT_FIELDS, type SessionListFilter } from './filters.js';
import {
  type AnalyticsQuery,
  channelValues,
  distinct,
  exactList,
  firstValue,
  limitCount,
  listValues,
  sessionIdList,
} from './queryValues.js';
import { readTraceDimensions } from './traceDimensions.js';

/** Filter values of the session list (spec 000 §3, §4.2), case-sensitive. */
export const SESSION_STATUS_FILTERS = [
  'active',
  'idle',
  'ended',
  'completed',
  'escalated',
  'abandoned',
  'archived',
] as const;
export const CONTAINMENT_TYPE_FILTERS = [
  'contained',
  'contained_resolved',
  'contained_partial',
  'contained_unresolved',
  'escalated',
  'abandoned',
] as const;
export const SESSION_ENVIRONMENT_FILTERS = ['dev', 'staging', 'production', 'working-copy'] as const;
/** `dev` matches both stored spellings. */
const STORED_ENVIRONMENTS: Readonly<Record<string, readonly string[]>> = {
  dev: ['dev', 'development'],
  staging: ['staging'],
  production: ['production'],
  'working-copy': ['working-copy'],
};

export const SESSION_LIST_LIMITS = {
  containmentType: 100,
  environment: 4,
  channelUId: 100,
  callerNumber: 100,
  callerNumberLength: 512,
} as const;

export interface SessionListQueryOptions {
  /** False when the project's reporting exposure configuration disables the identity field group. */
  callerNumberLookupEnabled: boolean;
}

/**
 * GET /api/public/analytics/projects/{projectId}/sessions: query → SessionListFilter or the 400/403
 * the spec names. Checks run in a fixed order (403 first, then the spec's table order), so one request
 * always gives the same error.
 */
export function parseSessionListQuery(
  projectId: string,
  query: AnalyticsQuery,
  options: SessionListQueryOptions,
): ParseResult<SessionListFilter> {
  return runParser(() => {
    const callerNumbers = listValues(query, 'callerNumber');
    if (callerNumbers !== undefined && !options.callerNumberLookupEnabled) {
      reject(
        'CALLER_NUMBER_LOOKUP_DISABLED',
        'callerNumber lookup is disabled for this project',
        { parameter: 'callerNumber' },
        403,
      );
    }
    const range = readDateRange(query);
    const sessionIds = sessionIdList(query);
    if (sessionIds === undefined) requireDates(range, 'sessionIds');

    const filter: SessionListFilter = { projectId, ...range, ...readPaging(query) };
    if (sessionIds !== undefined) filter.sessionIds = sessionIds;

    const containmentTypes = enumList(
      query,
      'containmentType',
      CONTAINMENT_TYPE_FILTERS,
      SESSION_LIST_LIMITS.containmentType,
      'INVALID_CONTAINMENT_TYPE',
    );
    if (containmentTypes !== undefined) filter.containmentTypes = containmentTypes;

    const environments = enumList(
      query,
      'environment',
      SESSION_ENVIRONMENT_FILTERS,
      SESSION_LIST_LIMITS.environment,
      'INVALID_ENVIRONMENT',
    );
    if (environments !== undefined) {
      filter.environments = distinct(environments.flatMap((e) => STORED_ENVIRONMENTS[e] ?? []));
    }

    const channelUserIds = exactList(query, 'channelUId', SESSION_LIST_LIMITS.channelUId);
    if (channelUserIds !== undefined) filter.channelUserIds = channelUserIds;

    if (callerNumbers !== undefined) filter.callerNumberKeys = callerNumberKeys(callerNumbers);

    const channels = channelValues(query);
    if (channels !== undefined) filter.channels = expandChannels(channels);

    const traceDimensions = readTraceDimensions(query);
    if (traceDimensions !== undefined) filter.traceDimensions = traceDimensions;

    const status = firstValue(query, 'status');
    if (status !== undefined) {
      if (!(SESSION_STATUS_FILTERS as readonly string[]).includes(status)) {
        reject('INVALID_STATUS', `status must be one of ${SESSION_STATUS_FILTERS.join(', ')}`, {
          parameter: 'status',
          value: echo(status),
          allowed: SESSION_STATUS_FILTERS,
        });
      }
      filter.status = status;
    }

    // Our extension, checked last; the default (createdAt desc) is left out so that the filter and
    // the page cache key stay the same whether it is sent or not.
    const sort = readSort(query, SESSION_SORT_FIELDS, 'createdAt');
    if (sort.field !== 'createdAt' || sort.direction !== 'desc') filter.sort = sort;
    return filter;
  });
}

function enumList<T extends string>(
  query: AnalyticsQuery,
  name: string,
  allowed: readonly T[],
  max: number,
  code: 'INVALID_CONTAINMENT_TYPE' | 'INVALID_ENVIRONMENT',
): T[] | undefined {
  const values = listValues(query, name);
  if (values === undefined) return undefined;
  limitCount(name, values, max);
  const invalid = values.find((v) => !(allowed as readonly string[]).includes(v));
  if (invalid !== undefined) {
    reject(code, `${name} must be one of ${allowed.join(', ')}`, {
      parameter: name,
      value: echo(invalid),
      allowed,
    });
  }
  return distinct(values) as T[];
}

/** callerNumber rules 4 to 7 of spec 000 §4.2; the value is never echoed. */
function callerNumberKeys(entries: readonly string[]): string[] {
  limitCount('callerNumber', entries, SESSION_LIST_LIMITS.callerNumber);
  entries.forEach((entry, index) => {
    const reason =
      entry === ''
        ? 'empty'
        : !/[\p{L}\p{N}]/u.test(entry)
          ? 'no_letter_or_digit'
          : [...entry].length > SESSION_LIST_LIMITS.callerNumberLength
            ? 'too_long'
            : undefined;
    if (reason !== undefined) {
      reject('INVALID_CALLER_NUMBER', 'callerNumber entry is invalid', {
        parameter: 'callerNumber',
        index,
        reason,
        maxLength: SESSION_LIST_LIMITS.callerNumberLength,
      });
    }
  });
  return distinct(entries.map(callerNumberKey));
}
