export type { AnalyticsErrorCode, AnalyticsQueryError, ParseResult } from './analyticsQueryError.js';
export { ANONYMOUS_CALLER_KEY, CALLER_NUMBER_KEY_MAX_LENGTH, callerNumberKey } from './callerNumberKey.js';
export type { ChannelFamily } from './channelFamilies.js';
export {
  canonicalChannel,
  channelFamily,
  expandChannels,
  VOICE_CHANNELS,
  WEB_CHANNELS,
} from './channelFamilies.js';
export { DEFAULT_LIMIT, MAX_LIMIT, SORT_PARAMS } from './dateRangeAndPaging.js';
export type {
  DataMode,
  LedgerFilter,
  LedgerMatch,
  LedgerSortField,
  LedgerStatsBucket,
  LedgerStatsFilter,
  LedgerStatsGroupBy,
  SessionListFilter,
  SessionSortField,
  SortDirection,
} from './filters.js';
export {
  DATA_MODES,
  LEDGER_SORT_FIELDS,
  LEDGER_STATS_BUCKETS,
  LEDGER_STATS_GROUP_BY,
  SESSION_SORT_FIELDS,
  SORT_DIRECTIONS,
} from './filters.js';
export { isWithheldCallerId, storedCallerNumberKey } from './isWithheldCallerId.js';
export {
  ENVELOPE_RESERVE_BYTES,
  fitCount,
  jsonBytes,
  PAGE_BODY_LIMIT_BYTES,
  PAGE_ITEMS_BUDGET_BYTES,
} from './pageBudget.js';
export { parseIsoDate } from './parseIsoDate.js';
export { LEDGER_LIMITS, LEDGER_PARAMS, LEDGER_STATUSES, parseLedgerQuery } from './parseLedgerQuery.js';
export {
  BUCKET_MS,
  bucketCount,
  defaultBucket,
  MAX_BUCKETS,
  parseLedgerStatsQuery,
} from './parseLedgerStatsQuery.js';
export type { SessionListQueryOptions } from './parseSessionListQuery.js';
export {
  CONTAINMENT_TYPE_FILTERS,
  parseSessionListQuery,
  SESSION_ENVIRONMENT_FILTERS,
  SESSION_LIST_LIMITS,
  SESSION_STATUS_FILTERS,
} from './parseSessionListQuery.js';
export type { AnalyticsQuery } from './queryValues.js';
export { MAX_CHANNEL_LENGTH, MAX_CHANNELS, MAX_SESSION_IDS } from './queryValues.js';
export { sessionSearchQuery } from './sessionSearchBody.js';
export {
  CANONICAL_SOURCE_SUBTYPES,
  CANONICAL_SOURCES,
  canonicalSource,
  canonicalSourceSubtype,
  SOURCE_ALIASES,
  SOURCE_SUBTYPE_ALIASES,
} from './sourceAliases.js';
export { sourceLabel, sourceSubtypeLabel } from './sourceLabels.js';
export { MAX_TRACE_DIMENSIONS } from './traceDimensions.js';
