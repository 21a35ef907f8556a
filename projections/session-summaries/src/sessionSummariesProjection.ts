import type { RecordedEvent } from '@parley/eventstore';
import { defineProjection, type KeyOf, type RowOf, utcDay } from '@parley/projection-runner';
import { dimensionMatchKey, dimensionNameKey, evolveDimension } from './dimensionRow.js';
import { parsedSessionEvent } from './parsedSessionEvent.js';
import { ACTIVITY_SPAN, LAST_ACTIVITY, MESSAGE_COUNT } from './sortKeys.js';
import { evolveSummary } from './summaryRow.js';

/** The event types this projection reads; every other type is filtered out by the runner. */
export const SESSION_SUMMARY_EVENT_TYPES = [
  'SessionStarted',
  'SessionEnded',
  'SessionIdled',
  'SessionArchived',
  'MessageReceived',
  'AgentReplied',
  'TraceEventRecorded',
  'LlmCallRecorded',
  'VoiceCallStatusChanged',
] as const;

/** The list's common filter columns, in each sort index: a page's walk tests them index-only. */
const SORT_INCLUDE = ['created_at', 'environment', 'channel', 'status', 'containment_type'] as const;

const summaryTable = {
  columns: {
    project_id: 'text',
    id: 'text',
    // From the winning SessionStarted (earliest startedAt, then smallest event id); null until one is read.
    started_event_id: { type: 'text', nullable: true },
    channel: { type: 'text', nullable: true },
    environment: { type: 'text', nullable: true },
    channel_user_id: { type: 'text', nullable: true },
    caller_number_key: { type: 'text', nullable: true },
    trace_dimensions: { type: 'jsonb', nullable: true },
    is_test: { type: 'boolean', nullable: true },
    created_at: { type: 'timestamptz', nullable: true },
    // Latest end of any activity (start, message, reply, trace event, LLM call); ending is not activity.
    last_activity_at: { type: 'timestamptz', nullable: true },
    // From the winning SessionEnded (latest endedAt, then largest event id); null while active.
    ended_event_id: { type: 'text', nullable: true },
    ended_at: { type: 'timestamptz', nullable: true },
    recorded_containment_type: { type: 'text', nullable: true },
    // The winning SessionEnded's status (status itself may read `archived`).
    end_status: { type: 'text', nullable: true },
    // The latest SessionIdled: the activity it saw (latest lastActivityAt) and the latest idledAt.
    // Idle while no activity is later than idle_activity_at (docs/sessions.md).
    idle_activity_at: { type: 'timestamptz', nullable: true },
    idled_at: { type: 'timestamptz', nullable: true },
    // The earliest SessionArchived's archivedAt: archived is terminal.
    archived_at: { type: 'timestamptz', nullable: true },
    // Derived from the columns above at every change, stored for filtering.
    status: 'text',
    containment_type: 'text',
    duration_ms: 'bigint',
    idle_duration_ms: 'bigint',
    user_messages: 'integer',
    agent_messages: 'integer',
    trace_llm_call: 'integer',
    trace_decision: 'integer',
    trace_tool_call: 'integer',
    trace_error: 'integer',
    trace_total: 'integer',
    llm_calls: 'integer',
    input_tokens: 'bigint',
    cached_tokens: 'bigint',
    completion_tokens: 'bigint',
    reasoning_tokens: 'bigint',
    output_tokens: 'bigint',
    total_tokens: 'bigint',
    // Exact decimal sum of the calls' costs (see decimal.ts).
    estimated_cost: 'numeric',
    // The session's voice calls: callId → the latest status (VoiceCallStatusChanged); null without calls.
    voice_calls: { type: 'jsonb', nullable: true },
    // Latest recordedAt of the events folded into the row (spec 000 §4.2 callerNumber rule 9).
    summary_written_at: 'timestamptz',
  },
  primaryKey: ['project_id', 'id'],
  indexes: [
    { columns: ['project_id', 'created_at', 'id'] },
    // Covers the exact `total` of the common filters: an index-only count instead of one heap visit
    // per session of the date range (1M sessions, a week of 140k: 220 ms → 35 ms, docs/performance.md).
    { columns: ['project_id', 'created_at', 'environment', 'channel', 'status', 'containment_type'] },
    { columns: ['project_id', 'caller_number_key'] },
    { columns: ['project_id', 'channel_user_id'] },
    // The worker's lifecycle sweep (listLifecycleCandidates): open sessions by last activity, ended
    // ones by end time, across projects.
    { columns: ['status', 'last_activity_at'] },
    { columns: ['status', 'ended_at'] },
    // The list's other sort keys (listSessions SORT_EXPRESSIONS), id last as the tie-break: a sorted
    // page walks one of these in its order, tests the common filters in the index (INCLUDE) and
    // stops after the page, instead of sorting the window's matches (docs/performance.md).
    { columns: ['project_id', 'estimated_cost', 'id'], include: SORT_INCLUDE },
    { columns: ['project_id', 'total_tokens', 'id'], include: SORT_INCLUDE },
    {
      columns: ['project_id', { expression: MESSAGE_COUNT, of: ['user_messages', 'agent_messages'] }, 'id'],
      include: [...SORT_INCLUDE, 'user_messages', 'agent_messages'],
    },
    {
      columns: ['project_id', { expression: LAST_ACTIVITY, of: ['last_activity_at', 'created_at'] }, 'id'],
      include: [...SORT_INCLUDE, 'last_activity_at'],
    },
    // The spread of lastActivityAt - createdAt in a project: its least and greatest bound the
    // lastActivityAt of a date range's sessions, so that walk starts and stops near the range.
    { columns: ['project_id', { expression: ACTIVITY_SPAN, of: ['last_activity_at', 'created_at'] }] },
  ],
  // Exact per-day counts for the list's `total` (sessionTotal.ts): whole days of a range are summed
  // here, only the partial days at its edges are counted row by row.
  rollups: {
    session_day_counts: {
      columns: {
        project_id: 'text',
        day: 'timestamptz',
        environment: 'text',
        channel: 'text',
        status: 'text',
        containment_type: 'text',
      },
      groups: (row: SummaryRollupInput) =>
        row.created_at === null
          ? []
          : [
              {
                project_id: row.project_id,
                day: utcDay(row.created_at),
                environment: row.environment ?? '',
                channel: row.channel ?? '',
                status: row.status,
                containment_type: row.containment_type,
              },
            ],
    },
    session_dimension_day_counts: {
      columns: { project_id: 'text', day: 'timestamptz', match_key: 'text' },
      groups: (row: SummaryRollupInput) =>
        row.created_at === null || row.trace_dimensions === null
          ? []
          : Object.entries(row.trace_dimensions as Record<string, string>).map(([name, value]) => ({
              project_id: row.project_id,
              day: utcDay(row.created_at as Date),
              match_key: dimensionMatchKey(name, value),
            })),
    },
  },
} as const;

/** The summary columns the rollups group by (a type alias: rows are checked against it bivariantly). */
type SummaryRollupInput = {
  project_id: string;
  created_at: Date | string | null;
  environment: string | null;
  channel: string | null;
  status: string;
  containment_type: string;
  trace_dimensions: unknown;
};

/**
 * One row per dimension of a session, for the traceDimensions filter: the runner's indexes are
 * plain btrees (no GIN on the summary's jsonb), and names and values are unbounded strings, so rows
 * are found by a hash of (name, value). A row is only valid for the SessionStarted it came from
 * (readers join on started_event_id), which keeps the table exact when a session has two starts.
 */
const dimensionTable = {
  columns: {
    project_id: 'text',
    session_id: 'text',
    name_key: 'text',
    match_key: 'text',
    started_event_id: 'text',
    started_at: 'timestamptz',
  },
  primaryKey: ['project_id', 'session_id', 'name_key'],
  // started_at: the list's date range narrows the candidates before the join (a dimension row's
  // started_at is its start's startedAt, which is the joined summary's created_at).
  // Covering, and ordered as the list is: a dimension-filtered page walks it backwards (listSessions).
  indexes: [
    {
      columns: ['project_id', 'match_key', 'started_at', 'session_id'],
      include: ['name_key', 'started_event_id'],
    },
  ],
} as const;

export type SummaryRow = RowOf<typeof summaryTable>;
export type SummaryKey = KeyOf<typeof summaryTable>;
export type DimensionRow = RowOf<typeof dimensionTable>;
export type DimensionKey = KeyOf<typeof dimensionTable>;

function summaryKeys(event: RecordedEvent): SummaryKey[] {
  const parsed = parsedSessionEvent(event);
  if (!parsed) return [];
  return [{ project_id: parsed.data.projectId, id: parsed.data.sessionId }];
}

function dimensionKeys(event: RecordedEvent): DimensionKey[] {
  const parsed = parsedSessionEvent(event);
  if (parsed?.type !== 'SessionStarted') return [];
  const { projectId, sessionId, traceDimensions } = parsed.data;
  return Object.keys(traceDimensions).map((name) => ({
    project_id: projectId,
    session_id: sessionId,
    name_key: dimensionNameKey(name),
  }));
}

/** Session summaries (spec 000 §2.2): one row per session, exact under any order of its events. */
export const sessionSummariesProjection = defineProjection({
  name: 'session-summaries',
  // 2: the covering index of the count; started_at in the dimension index. 3: the day-count rollups
  // and the covering dimension index. 4: session lifecycle (idle, abandoned, archived: SessionIdled,
  // SessionArchived, end_status) and the sweep's indexes. 5: an index per sort key of the list.
  // 6: voice_calls (VoiceCallStatusChanged).
  version: 6,
  eventTypes: SESSION_SUMMARY_EVENT_TYPES,
  tables: { session_summaries: summaryTable, session_dimensions: dimensionTable },
  handlers: {
    session_summaries: {
      keys: summaryKeys,
      evolve: (row, event, key) => {
        const parsed = parsedSessionEvent(event);
        return parsed ? evolveSummary(row, parsed, key) : row;
      },
    },
    session_dimensions: {
      keys: dimensionKeys,
      evolve: (row, event, key) => {
        const parsed = parsedSessionEvent(event);
        return parsed?.type === 'SessionStarted' ? evolveDimension(row, parsed, key) : row;
      },
    },
  },
});

export { dimensionMatchKey };
