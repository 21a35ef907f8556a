import { echo, type ParseResult, reject, runParser } from './analyticsQueryError.js';
import {
  readDataMode,
  readDateRange,
  readPaging,
  readSort,
  requireDates,
  SORT_PARAMS,
} from './dateRangeAndPaging.js';
import { LEDGER_SORT_FIELDS, type LedgerFilter, type LedgerMatch } from './filters.js';
import {
  type AnalyticsQuery,
  channelValues,
  distinct,
  exactList,
  firstValue,
  sessionIdList,
} from './queryValues.js';
import { canonicalSource, canonicalSourceSubtype } from './sourceAliases.js';

export const LEDGER_STATUSES = ['success', 'failed'] as const;

/**
 * Names of the ledger controls the spec does not show (spec 000 §4.3, "not shown"): README "Decisions".
 */
export const LEDGER_PARAMS = {
  agentName: 'agentName',
  channelType: 'channelType',
  sortBy: SORT_PARAMS.sortBy,
  sortOrder: SORT_PARAMS.sortOrder,
} as const;

export const LEDGER_LIMITS = {
  /** Not in the spec: a bound for every other multi-valued filter. */
  otherFilterValues: 100,
  environment: 4,
} as const;

/**
 * GET /api/public/analytics/projects/{projectId}/llm-ledger: query → LedgerFilter or the 400 the spec
 * names. Every filter matches exactly (case-sensitive) except source and sourceSubtype.
 */
export function parseLedgerQuery(projectId: string, query: AnalyticsQuery): ParseResult<LedgerFilter> {
  return runParser(() => {
    const { from, to } = requireDates(readDateRange(query));
    const controls = {
      sort: readSort(query, LEDGER_SORT_FIELDS, 'timestamp'),
      dataMode: readDataMode(query),
      ...readPaging(query),
    };
    return { ...readLedgerMatch(projectId, from, to, query), ...controls };
  });
}

/**
 * The ledger's window and filters (every parameter but the sort, data mode and paging), checked in
 * the order of docs/api.md: shared by the ledger and its time series (parseLedgerStatsQuery).
 * Throws a QueryRejection: call it inside runParser.
 */
export function readLedgerMatch(projectId: string, from: Date, to: Date, query: AnalyticsQuery): LedgerMatch {
  const filter: LedgerMatch = { projectId, from, to };

  const sessionIds = sessionIdList(query);
  if (sessionIds !== undefined) filter.sessionIds = sessionIds;

  const channels = channelValues(query);
  if (channels !== undefined) filter.channels = channels;

  const channelTypes = exactList(query, LEDGER_PARAMS.channelType, LEDGER_LIMITS.otherFilterValues);
  if (channelTypes !== undefined) filter.channelTypes = channelTypes;

  const sources = exactList(query, 'source', LEDGER_LIMITS.otherFilterValues);
  const canonicalSources = sources === undefined ? undefined : distinct(sources.map(canonicalSource));
  if (canonicalSources !== undefined) filter.sources = canonicalSources;

  const subtypes = exactList(query, 'sourceSubtype', LEDGER_LIMITS.otherFilterValues);
  if (subtypes !== undefined) {
    filter.sourceSubtypes = distinct(subtypes.map((s) => canonicalSourceSubtype(s, canonicalSources)));
  }

  const status = firstValue(query, 'status');
  if (status !== undefined) {
    if (status !== 'success' && status !== 'failed') {
      reject('INVALID_STATUS', `status must be one of ${LEDGER_STATUSES.join(', ')}`, {
        parameter: 'status',
        value: echo(status),
        allowed: LEDGER_STATUSES,
      });
    }
    filter.status = status;
  }

  const models = exactList(query, 'model', LEDGER_LIMITS.otherFilterValues);
  if (models !== undefined) filter.models = models;
  const providers = exactList(query, 'provider', LEDGER_LIMITS.otherFilterValues);
  if (providers !== undefined) filter.providers = providers;
  const environments = exactList(query, 'environment', LEDGER_LIMITS.environment);
  if (environments !== undefined) filter.environments = environments;
  const agentNames = exactList(query, LEDGER_PARAMS.agentName, LEDGER_LIMITS.otherFilterValues);
  if (agentNames !== undefined) filter.agentNames = agentNames;
  return filter;
}
