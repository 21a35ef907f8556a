export { dimensionMatchKey, dimensionNameKey } from './dimensionRow.js';
export type { SessionListFilter } from './filter.js';
export {
  ENVELOPE_RESERVE_BYTES,
  type ListSessionsOptions,
  listSessions,
  MAX_BODY_BYTES,
  type SessionPage,
  type SessionSummary,
} from './listSessions.js';
export {
  type DimensionRow,
  SESSION_SUMMARY_EVENT_TYPES,
  type SummaryRow,
  sessionSummariesProjection,
} from './sessionSummariesProjection.js';
export { ACTIVE, ACTIVE_CONTAINMENT, unclassifiedContainment } from './summaryRow.js';
