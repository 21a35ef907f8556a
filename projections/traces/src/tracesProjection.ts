import { llmCallMeasureColumns } from '@parley/projection-llm-ledger/llmCallColumns';
import { defineProjection, type RowOf } from '@parley/projection-runner';
import { tracesEventOf } from './parsedEvent.js';
import { callStatusRow, generationRow, traceEventRow } from './traceRows.js';

const nullableText = { type: 'text', nullable: true } as const;
const nullableInt = { type: 'integer', nullable: true } as const;

/**
 * The session trace read model (spec 001 §2.6, §4.8):
 * - `trace_events`: one row per TraceEventRecorded, keyed by the log event's id (a span recorded
 *   twice is two events, as the log says; docs/traces.md), and one per VoiceCallStatusChanged of a
 *   session (a `state_change` named `voice_call_status`; version 2);
 * - `trace_generations`: one row per LlmCallRecorded made in a session (the last record of a callId
 *   wins, as in the ledger), with prompt metadata but never the prompt;
 * - `trace_sessions`: the sessions the trace APIs know (any start, trace event or call), so that an
 *   unknown session is 404 and a session without trace events an empty list.
 */
export const tracesProjection = defineProjection({
  name: 'traces',
  // 2: call lifecycle statuses (VoiceCallStatusChanged) are trace events too.
  version: 2,
  eventTypes: ['SessionStarted', 'TraceEventRecorded', 'LlmCallRecorded', 'VoiceCallStatusChanged'],
  tables: {
    trace_events: {
      columns: {
        project_id: 'text',
        session_id: 'text',
        event_id: 'text',
        seq: 'bigint',
        trace_id: 'text',
        span_id: 'text',
        parent_span_id: nullableText,
        event_type: 'text',
        name: nullableText,
        status: nullableText,
        decision_kind: nullableText,
        llm_call_id: nullableText,
        started_at: 'timestamptz',
        duration_ms: { type: 'bigint', nullable: true },
        ended_at: { type: 'timestamptz', nullable: true },
        attributes: 'jsonb',
      },
      primaryKey: ['project_id', 'session_id', 'event_id'],
      indexes: [
        // A session's events in order (the traces list, metrics, analysis).
        { columns: ['project_id', 'session_id', 'started_at', 'seq', 'event_id'] },
        // Children of a span, and each listed span's child count.
        { columns: ['project_id', 'session_id', 'parent_span_id'] },
        { columns: ['project_id', 'session_id', 'span_id'] },
        // The CSV export's keyset walk over a project (and its date window).
        { columns: ['project_id', 'started_at', 'event_id'] },
      ],
    },
    trace_generations: {
      columns: {
        project_id: 'text',
        session_id: 'text',
        call_id: 'text',
        event_id: 'text',
        trace_id: nullableText,
        span_id: nullableText,
        agent_name: 'text',
        provider: nullableText,
        model: nullableText,
        status: 'text',
        status_code: 'integer',
        environment: nullableText,
        channel: nullableText,
        channel_type: nullableText,
        ...llmCallMeasureColumns,
        price_card_version: nullableText,
        source: 'text',
        source_subtype: 'text',
        started_at: 'timestamptz',
        prompt_stored: 'boolean',
        prompt_message_count: nullableInt,
        prompt_tool_count: nullableInt,
        prompt_bytes: nullableInt,
        response_bytes: nullableInt,
      },
      primaryKey: ['project_id', 'session_id', 'call_id'],
      indexes: [
        { columns: ['project_id', 'started_at', 'session_id', 'call_id'] },
        { columns: ['project_id', 'model', 'started_at'] },
      ],
    },
    trace_sessions: {
      columns: {
        project_id: 'text',
        session_id: 'text',
        agent_name: nullableText,
        channel: nullableText,
        environment: nullableText,
        started_at: { type: 'timestamptz', nullable: true },
      },
      primaryKey: ['project_id', 'session_id'],
    },
  },
  handlers: {
    trace_events: {
      keys: (event) => {
        const e = tracesEventOf(event);
        if (e?.type === 'TraceEventRecorded' || (e?.type === 'VoiceCallStatusChanged' && e.data.sessionId))
          return [
            { project_id: e.data.projectId, session_id: e.data.sessionId ?? '', event_id: event.eventId },
          ];
        return [];
      },
      evolve: (row, event) => {
        const e = tracesEventOf(event);
        if (e?.type === 'TraceEventRecorded') return traceEventRow(e.data, event);
        if (e?.type === 'VoiceCallStatusChanged' && e.data.sessionId !== undefined)
          return callStatusRow({ ...e.data, sessionId: e.data.sessionId }, event);
        return row;
      },
    },
    trace_generations: {
      keys: (event) => {
        const e = tracesEventOf(event);
        if (e?.type !== 'LlmCallRecorded' || e.data.sessionId === undefined) return [];
        return [{ project_id: e.data.projectId, session_id: e.data.sessionId, call_id: e.data.callId }];
      },
      evolve: (row, event) => {
        const e = tracesEventOf(event);
        if (e?.type !== 'LlmCallRecorded' || e.data.sessionId === undefined) return row;
        return generationRow({ ...e.data, sessionId: e.data.sessionId }, event);
      },
    },
    trace_sessions: {
      keys: (event) => {
        const e = tracesEventOf(event);
        if (e === null || e.data.sessionId === undefined) return [];
        return [{ project_id: e.data.projectId, session_id: e.data.sessionId }];
      },
      evolve: (row, event, key) => {
        const e = tracesEventOf(event);
        const known = row ?? { ...key, agent_name: null, channel: null, environment: null, started_at: null };
        if (e?.type !== 'SessionStarted') return known;
        // Several starts of one session (a retried append): the earliest startedAt wins.
        const startedAt = new Date(e.data.startedAt);
        if (known.started_at !== null && known.started_at.getTime() <= startedAt.getTime()) return known;
        return {
          ...known,
          agent_name: e.data.agentName,
          channel: e.data.channel,
          environment: e.data.environment,
          started_at: startedAt,
        };
      },
    },
  },
});

export type TraceEventRow = RowOf<typeof tracesProjection.tables.trace_events>;
export type TraceGenerationRow = RowOf<typeof tracesProjection.tables.trace_generations>;
export type TraceSessionRow = RowOf<typeof tracesProjection.tables.trace_sessions>;
