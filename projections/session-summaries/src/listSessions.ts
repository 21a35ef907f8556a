import type { SessionSortField } from '@parley/analytics';
import {
  ENVELOPE_RESERVE_BYTES,
  fitCount,
  jsonBytes,
  PAGE_BODY_LIMIT_BYTES,
  PAGE_ITEMS_BUDGET_BYTES,
} from '@parley/analytics';
import type { Pool, PoolClient } from '@parley/platform';
import { type ActivityBounds, activityBounds, activityKeysSql } from './activityPage.js';
import { dimensionMatchKey, dimensionNameKey } from './dimensionRow.js';
import type { SessionListFilter } from './filter.js';
import { sessionListWhere } from './sessionListWhere.js';
import { sessionTotalSql } from './sessionTotal.js';
import type { VoiceCalls } from './summaryRow.js';
import { IDLE } from './summaryRow.js';

/** A session summary exactly as spec 000 §2.2 names its fields. */
export interface SessionSummary {
  id: string;
  channel: string;
  environment: string;
  status: string;
  containmentType: string;
  createdAt: string;
  lastActivityAt: string;
  /** null while the session is active. */
  endedAt: string | null;
  messageCount: { user: number; agent: number; total: number };
  traceEventCount: { llm_call: number; decision: number; tool_call: number; error: number; total: number };
  tokenCount: {
    inputTokens: number;
    cachedTokens: number;
    completionTokens: number;
    reasoningTokens: number;
    outputTokens: number;
    totalTokens: number;
  };
  traceDimensions: Record<string, string>;
  estimatedCost: number;
  durationMs: number;
  idleDurationMs: number;
  isTest: boolean | null;
  /**
   * Parley's extension (docs/api.md session fields, `voiceCalls`): the session's voice calls with their latest
   * lifecycle status; absent for a session without calls (the spec's fields stay exactly as they are).
   */
  voiceCalls?: VoiceCallSummary[];
}

export interface VoiceCallSummary {
  callId: string;
  /** The latest status (initiated, ringing, in-progress, completed, failed, …). */
  status: string;
  /** When it happened (the provider's time, else when it was reported). */
  at: string;
  /** The call's duration once reported (completed), else null. */
  durationSeconds: number | null;
}

export interface SessionPage {
  /** Every match across pages. */
  total: number;
  sessions: SessionSummary[];
  /** True when matches remain after this page (a page cut short by the size cap included). */
  hasMore: boolean;
}

/** The response body cap of spec 000 §8. */
export const MAX_BODY_BYTES = PAGE_BODY_LIMIT_BYTES;
export { ENVELOPE_RESERVE_BYTES };

export interface ListSessionsOptions {
  /** Bytes the serialised `sessions` array may take (commas and brackets included). */
  maxSessionsBytes?: number;
  /** The time of reading: an idle session's durations run until then. Default: the clock. */
  now?: Date;
  /** A lastActivityAt page's bounds as read before (tests pass stale ones); default: read now. */
  activityBounds?: ActivityBounds;
}

interface SummaryQueryRow {
  total: number;
  id: string | null;
  channel: string;
  environment: string;
  status: string;
  containment_type: string;
  created_at: Date;
  last_activity_at: Date | null;
  ended_at: Date | null;
  user_messages: number;
  agent_messages: number;
  trace_llm_call: number;
  trace_decision: number;
  trace_tool_call: number;
  trace_error: number;
  trace_total: number;
  input_tokens: number;
  cached_tokens: number;
  completion_tokens: number;
  reasoning_tokens: number;
  output_tokens: number;
  total_tokens: number;
  trace_dimensions: Record<string, string> | null;
  estimated_cost: string;
  duration_ms: number;
  idle_duration_ms: number;
  is_test: boolean | null;
  voice_calls: VoiceCalls | null;
}

const COLUMNS = `s.id, s.channel, s.environment, s.status, s.containment_type, s.created_at,
  s.last_activity_at, s.ended_at, s.user_messages, s.agent_messages, s.trace_llm_call, s.trace_decision,
  s.trace_tool_call, s.trace_error, s.trace_total, s.input_tokens, s.cached_tokens, s.completion_tokens,
  s.reasoning_tokens, s.output_tokens, s.total_tokens, s.trace_dimensions, s.estimated_cost, s.duration_ms,
  s.idle_duration_ms, s.is_test, s.voice_calls`;

/**
 * A row as the list returns it. An idle session is still open and idle: its durations run until
 * the time of reading (the row holds them as of the moment it went idle, which is never more).
 */
export function toSessionSummary(
  r: SummaryQueryRow & { id: string },
  now: Date = new Date(),
): SessionSummary {
  const idle = r.status === IDLE;
  const lastActivity = r.last_activity_at ?? r.created_at;
  return {
    id: r.id,
    channel: r.channel,
    environment: r.environment,
    status: r.status,
    containmentType: r.containment_type,
    createdAt: r.created_at.toISOString(),
    lastActivityAt: (r.last_activity_at ?? r.created_at).toISOString(),
    endedAt: r.ended_at?.toISOString() ?? null,
    messageCount: {
      user: r.user_messages,
      agent: r.agent_messages,
      total: r.user_messages + r.agent_messages,
    },
    traceEventCount: {
      llm_call: r.trace_llm_call,
      decision: r.trace_decision,
      tool_call: r.trace_tool_call,
      error: r.trace_error,
      total: r.trace_total,
    },
    tokenCount: {
      inputTokens: r.input_tokens,
      cachedTokens: r.cached_tokens,
      completionTokens: r.completion_tokens,
      reasoningTokens: r.reasoning_tokens,
      outputTokens: r.output_tokens,
      totalTokens: r.total_tokens,
    },
    traceDimensions: r.trace_dimensions ?? {},
    estimatedCost: Number(r.estimated_cost),
    durationMs: idle ? Math.max(r.duration_ms, now.getTime() - r.created_at.getTime()) : r.duration_ms,
    idleDurationMs: idle
      ? Math.max(r.idle_duration_ms, now.getTime() - lastActivity.getTime())
      : r.idle_duration_ms,
    isTest: r.is_test,
    ...(r.voice_calls === null ? {} : { voiceCalls: voiceCallsOf(r.voice_calls) }),
  };
}

/** The session's calls, in the order of their latest status (an extension: docs/api.md `voiceCalls`). */
const voiceCallsOf = (calls: VoiceCalls): VoiceCallSummary[] =>
  Object.entries(calls)
    .map(([callId, c]) => ({ callId, status: c.status, at: c.at, durationSeconds: c.durationSeconds }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.callId < b.callId ? -1 : 1));

/**
 * One page of the session list (spec 000 §4.2), newest first by default: createdAt descending, then
 * id descending (one backward scan of the (project_id, created_at, id) index); `filter.sort` picks
 * another key or direction, ties by id in the same direction. Reads the views only.
 * One statement, one round trip: the count (sessionTotal.ts: day rollups where they apply) and the
 * page, the count repeated on each page row (and alone, with null columns, when the page is empty).
 */
export async function listSessions(
  db: Pool | PoolClient,
  filter: SessionListFilter,
  options: ListSessionsOptions = {},
): Promise<SessionPage> {
  const maxBytes = options.maxSessionsBytes ?? PAGE_ITEMS_BUDGET_BYTES;
  const params: unknown[] = [];
  const bounds =
    filter.sort?.field === 'lastActivityAt' && filter.from !== undefined && filter.to !== undefined
      ? (options.activityBounds ?? (await activityBounds(db, filter)))
      : null;
  const totalSql = sessionTotalSql(filter, params);
  const pageQuery = pageSql(filter, params, bounds);
  const { rows } = await db.query<SummaryQueryRow>(
    `select t.total, p.* from (select ${totalSql} as total) t left join lateral (${pageQuery}) p on true`,
    [...params, filter.limit, filter.offset],
  );
  const total = Number(rows[0]?.total ?? 0);
  const page = rows
    .filter((row): row is SummaryQueryRow & { id: string } => row.id !== null)
    .map((row) => toSessionSummary(row, options.now ?? new Date()));
  // Sizes are computed lazily: rows past the cap are never serialised.
  const sessions = page.slice(0, fitCount(lazySizes(page), maxBytes));
  return { total, sessions, hasMore: filter.offset + sessions.length < total };
}

/**
 * The sort keys of the list (our extension of spec 000 §4.2) as expressions over the view (alias
 * `s`); every one is non-null on a listed row. lastActivityAt reads as the API shows it.
 */
const SORT_EXPRESSIONS: Record<SessionSortField, string> = {
  createdAt: 's.created_at',
  lastActivityAt: 'coalesce(s.last_activity_at, s.created_at)',
  estimatedCost: 's.estimated_cost',
  totalTokens: 's.total_tokens',
  messageCount: '(s.user_messages + s.agent_messages)',
};

/**
 * The page's query, its parameters appended to `params`, limit and offset the two after them.
 * The default order (createdAt desc, id desc) without a traceDimensions filter walks the summaries'
 * (project_id, created_at, id) index backwards. With one, it walks the first dimension's rows instead, newest first on their covering
 * (project_id, match_key, started_at, session_id) index, and probes each one's summary by primary
 * key (a dimension row is valid for the start it came from, whose startedAt is the summary's
 * created_at: the same order). The planner cannot see that order through the join (it estimates one
 * row for it and sorts every match), hence the ordered subquery: a campaign on 2.5% of a week's
 * sessions is 100 index entries and 100 probes instead of 11,600 (docs/performance.md).
 * Any other sort (or createdAt ascending) takes the page's keys first, from the sort key's own
 * (project_id, key, id) index, the common filters tested in the index (INCLUDE), in the page's order,
 * or from a bounded sort of the window's matches when the planner finds that cheaper (a narrow
 * filter), then reads the page's rows by primary key. lastActivityAt is walked between bounds
 * (activityPage.ts): it follows createdAt closely, so an unbounded walk would step over every session
 * after (or before) the range first.
 */
function pageSql(filter: SessionListFilter, params: unknown[], bounds: ActivityBounds | null): string {
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const paging = () => `limit $${params.length + 1} offset $${params.length + 2}`;
  const sort = filter.sort;
  if (sort !== undefined && (sort.field !== 'createdAt' || sort.direction !== 'desc')) {
    const direction = sort.direction === 'asc' ? 'asc' : 'desc';
    const key = SORT_EXPRESSIONS[sort.field];
    let keys: string;
    if (sort.field === 'lastActivityAt' && bounds !== null) {
      keys = activityKeysSql(filter, params, bounds, direction);
    } else {
      const { where } = sessionListWhere(filter, params);
      keys = `select s.project_id, s.id, ${key} as sort_key from session_summaries s where ${where}
        order by ${key} ${direction}, s.id ${direction} ${paging()}`;
    }
    // The page's keys first (from the sort key's index, filters tested in it), then its rows.
    return `select ${COLUMNS} from (${keys}) k
      cross join lateral (select * from session_summaries s where s.project_id = k.project_id and s.id = k.id) s
      order by k.sort_key ${direction}, k.id ${direction}`;
  }
  const first = Object.entries(filter.traceDimensions ?? {})[0];
  if (first === undefined) {
    const { where } = sessionListWhere(filter, params);
    return `select ${COLUMNS} from session_summaries s where ${where}
      order by s.created_at desc, s.id desc ${paging()}`;
  }
  const [name, value] = first;
  const range =
    (filter.from ? ` and d.started_at >= ${param(filter.from)}` : '') +
    (filter.to ? ` and d.started_at < ${param(filter.to)}` : '');
  const dimensions = `select d.session_id, d.started_at, d.started_event_id from session_dimensions d
     where d.project_id = ${param(filter.projectId)} and d.match_key = ${param(dimensionMatchKey(name, value))}
       and d.name_key = ${param(dimensionNameKey(name))}${range}
     order by d.started_at desc, d.session_id desc offset 0`;
  const { where } = sessionListWhere(filter, params);
  return `select ${COLUMNS} from (${dimensions}) d
    cross join lateral (
      select * from session_summaries s
       where s.project_id = ${param(filter.projectId)} and s.id = d.session_id
         and s.started_event_id = d.started_event_id and s.created_at = d.started_at and ${where}
    ) s
    order by d.started_at desc, d.session_id desc ${paging()}`;
}

function* lazySizes(items: readonly unknown[]): Generator<number> {
  for (const item of items) yield jsonBytes(item);
}
