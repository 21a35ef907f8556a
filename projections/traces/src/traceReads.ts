import type { Pool } from '@parley/platform';
import { exportTracesCsv, type TraceExportFilter } from './exportTraces.js';
import { type GenerationFilter, type GenerationPage, listGenerations } from './listGenerations.js';
import {
  listSpanChildren,
  listTraces,
  type SpanChildren,
  type TraceListFilter,
  type TracePage,
} from './listTraces.js';
import { getSessionMetrics, getTraceAnalysis } from './loadSessionTrace.js';
import type { SessionMetrics } from './sessionMetrics.js';
import type { TraceAnalysis } from './traceAnalysis.js';

/** Everything the trace routes read, as one object the API is given (tests can wrap it). */
export interface TraceReads {
  listTraces(filter: TraceListFilter): Promise<TracePage | null>;
  listSpanChildren(filter: {
    projectId: string;
    sessionId: string;
    spanId: string;
    limit: number;
    offset: number;
  }): Promise<SpanChildren>;
  sessionMetrics(projectId: string, sessionId: string): Promise<SessionMetrics | null>;
  traceAnalysis(
    projectId: string,
    sessionId: string,
  ): Promise<{ metrics: SessionMetrics; analysis: TraceAnalysis } | null>;
  exportCsv(filter: TraceExportFilter): AsyncGenerator<string>;
  listGenerations(filter: GenerationFilter): Promise<GenerationPage>;
}

export interface TraceReadsOptions {
  /** Rows per query of the CSV export (default EXPORT_BATCH_ROWS). */
  exportBatchRows?: number;
  /** Most trace events /metrics and /analysis load (default MAX_ANALYSED_EVENTS). */
  maxAnalysedEvents?: number;
}

export function createTraceReads(pool: Pool, options: TraceReadsOptions = {}): TraceReads {
  const size = options.maxAnalysedEvents === undefined ? {} : { maxEvents: options.maxAnalysedEvents };
  return {
    listTraces: (filter) => listTraces(pool, filter),
    listSpanChildren: (filter) => listSpanChildren(pool, filter),
    sessionMetrics: (projectId, sessionId) => getSessionMetrics(pool, projectId, sessionId, size),
    traceAnalysis: (projectId, sessionId) => getTraceAnalysis(pool, projectId, sessionId, size),
    exportCsv: (filter) =>
      exportTracesCsv(
        pool,
        filter,
        options.exportBatchRows === undefined ? {} : { batchRows: options.exportBatchRows },
      ),
    listGenerations: (filter) => listGenerations(pool, filter),
  };
}
