export { dimensionMatchKey, dimensionNameKey } from './dimensionRow.js';
export type { SessionListFilter } from './filter.js';
export {
  type EndedSessionsDueQuery,
  type LifecycleCandidate,
  type LifecycleCursor,
  listEndedSessionsDue,
  listOpenSessionsDue,
  type OpenSessionsDueQuery,
} from './lifecycleCandidates.js';
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
export { summarizeSession } from './summarizeSession.js';
export {
  ACTIVE,
  ACTIVE_CONTAINMENT,
  ARCHIVED,
  IDLE,
  sessionStatus,
  unclassifiedContainment,
} from './summaryRow.js';
