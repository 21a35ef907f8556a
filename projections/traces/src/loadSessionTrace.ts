import type { Pool } from '@parley/platform';
import { ParleyError, readSnapshot } from '@parley/platform';
import { sessionKnown } from './sessionKnown.js';
import { type SessionMetrics, sessionMetrics } from './sessionMetrics.js';
import { type TraceAnalysis, traceAnalysis } from './traceAnalysis.js';
import type { TraceEventRow, TraceGenerationRow } from './tracesProjection.js';

/** The most trace events a session may have for /metrics and /analysis (they hold them in memory). */
export const MAX_ANALYSED_EVENTS = 50_000;

export class TraceTooLargeError extends ParleyError {
  override readonly name = 'TraceTooLargeError';
  constructor(readonly limit: number) {
    super('TRACE_TOO_LARGE', 500, `the session has more than ${limit} trace events`);
  }
}

export interface SessionTrace {
  events: TraceEventRow[];
  generations: TraceGenerationRow[];
}

/**
 * Every trace event (in session order) and recorded call of a session, from one snapshot; null when
 * the session is unknown. Throws TraceTooLargeError past `maxEvents`.
 */
export async function loadSessionTrace(
  pool: Pool,
  projectId: string,
  sessionId: string,
  options: { maxEvents?: number } = {},
): Promise<SessionTrace | null> {
  const max = options.maxEvents ?? MAX_ANALYSED_EVENTS;
  return readSnapshot(pool, async (client) => {
    if (!(await sessionKnown(client, projectId, sessionId))) return null;
    const events = await client.query<TraceEventRow>(
      `select * from trace_events where project_id = $1 and session_id = $2
        order by started_at, seq, event_id limit $3`,
      [projectId, sessionId, max + 1],
    );
    if (events.rows.length > max) throw new TraceTooLargeError(max);
    const generations = await client.query<TraceGenerationRow>(
      'select * from trace_generations where project_id = $1 and session_id = $2 order by started_at, call_id',
      [projectId, sessionId],
    );
    return { events: events.rows, generations: generations.rows };
  });
}

/** The /metrics body of a session; null when the session is unknown. */
export async function getSessionMetrics(
  pool: Pool,
  projectId: string,
  sessionId: string,
  options: { maxEvents?: number } = {},
): Promise<SessionMetrics | null> {
  const trace = await loadSessionTrace(pool, projectId, sessionId, options);
  return trace && sessionMetrics(trace.events, trace.generations);
}

/** The /analysis body of a session (and the metrics it was derived from); null when unknown. */
export async function getTraceAnalysis(
  pool: Pool,
  projectId: string,
  sessionId: string,
  options: { maxEvents?: number } = {},
): Promise<{ metrics: SessionMetrics; analysis: TraceAnalysis } | null> {
  const trace = await loadSessionTrace(pool, projectId, sessionId, options);
  if (trace === null) return null;
  const metrics = sessionMetrics(trace.events, trace.generations);
  return { metrics, analysis: traceAnalysis(trace.events, trace.generations, metrics) };
}
