export { csvField, csvRecord } from './csv.js';
export {
  EXPORT_BATCH_ROWS,
  exportTracesCsv,
  TRACE_CSV_COLUMNS,
  type TraceExportFilter,
  traceCsvRecord,
} from './exportTraces.js';
export {
  type GenerationFilter,
  type GenerationPage,
  type GenerationRecord,
  listGenerations,
  toGenerationRecord,
} from './listGenerations.js';
export {
  listSpanChildren,
  listTraces,
  type SpanChildren,
  type TraceListFilter,
  type TracePage,
} from './listTraces.js';
export {
  getSessionMetrics,
  getTraceAnalysis,
  loadSessionTrace,
  MAX_ANALYSED_EVENTS,
  type SessionTrace,
  TraceTooLargeError,
} from './loadSessionTrace.js';
export {
  type GenerationNode,
  type LlmCallMetrics,
  type SessionMetrics,
  sessionMetrics,
  type TurnMetrics,
  toolOutcomes,
} from './sessionMetrics.js';
export {
  ANALYSIS_RULES,
  type DecisionAnomaly,
  type DecisionAnomalyKind,
  type ErrorPattern,
  type SlowSpan,
  type Suggestion,
  type SuggestionCode,
  type TraceAnalysis,
  traceAnalysis,
} from './traceAnalysis.js';
export { createTraceReads, type TraceReads, type TraceReadsOptions } from './traceReads.js';
export type { TokenCounts, TraceEventRecord, TraceLlmCall } from './traceRecord.js';
export { type PromptMetadata, promptMetadata } from './traceRows.js';
export {
  type TraceEventRow,
  type TraceGenerationRow,
  type TraceSessionRow,
  tracesProjection,
} from './tracesProjection.js';
export type { TraceNode } from './traceTree.js';
