import type { Pool, PoolClient } from '@parley/platform';
import type { SessionListFilter } from './filter.js';
import { sessionListWhere } from './sessionListWhere.js';

/**
 * The project's least and greatest lastActivityAt - createdAt (read from the ends of their index),
 * as text (microseconds and all): a session created within [from, to) has its lastActivityAt within
 * [from + loSpan, to + hiSpan).
 */
export interface ActivityBounds {
  loSpan: string;
  hiSpan: string;
}

const ACTIVITY = 'coalesce(s.last_activity_at, s.created_at)';
const SPAN = `(${ACTIVITY} - s.created_at)`;

/** The bounds of a page sorted by lastActivityAt; null without a date range (a list of sessionIds) or sessions. */
export async function activityBounds(
  db: Pool | PoolClient,
  filter: SessionListFilter,
): Promise<ActivityBounds | null> {
  if (filter.from === undefined || filter.to === undefined) return null;
  const { rows } = await db.query<{ lo_span: string | null; hi_span: string | null }>(
    `select min(${SPAN})::text as lo_span, max(${SPAN})::text as hi_span
       from session_summaries s where s.project_id = $1`,
    [filter.projectId],
  );
  const row = rows[0];
  if (row?.lo_span == null || row.hi_span == null) return null;
  return { loSpan: row.lo_span, hiSpan: row.hi_span };
}

/** `at` + `span`, added in UTC (a day is 24 h: no daylight saving in the sum). */
const plus = (at: string, span: string) =>
  `((${at}::timestamptz at time zone 'UTC') + ${span}::interval) at time zone 'UTC'`;

/**
 * The keys of a page by lastActivityAt over a date range (project_id, id, sort_key), limit and
 * offset applied. A session of the range has its lastActivityAt within [lo, hi) whenever its span is
 * within the bounds read before: those are the walk of the (project_id, lastActivityAt, id) index
 * between lo and hi, in the page's order, stopping after limit + offset matches. The sessions whose
 * span is outside the bounds (changed since they were read: normally none, two empty ranges of the
 * span index) are the other part; the two are disjoint and together every match, so the page is
 * exactly the plain sort's, in this statement's snapshot.
 */
export function activityKeysSql(
  filter: SessionListFilter,
  params: unknown[],
  bounds: ActivityBounds,
  direction: 'asc' | 'desc',
): string {
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const inRange = sessionListWhere(filter, params).where;
  const loSpan = param(bounds.loSpan);
  const hiSpan = param(bounds.hiSpan);
  const lo = plus(param(filter.from), loSpan);
  const hi = plus(param(filter.to), hiSpan);
  const outside = sessionListWhere(filter, params).where;
  const limit = `$${params.length + 1}`;
  const offset = `$${params.length + 2}`;
  return `select k.project_id, k.id, k.sort_key from (
      (select s.project_id, s.id, ${ACTIVITY} as sort_key from session_summaries s
        where ${inRange} and ${ACTIVITY} >= ${lo} and ${ACTIVITY} < ${hi}
          and ${SPAN} between ${loSpan}::interval and ${hiSpan}::interval
        order by ${ACTIVITY} ${direction}, s.id ${direction} limit ${limit}::bigint + ${offset}::bigint)
      union all
      (select s.project_id, s.id, ${ACTIVITY} as sort_key from session_summaries s
        where ${outside} and (${SPAN} < ${loSpan}::interval or ${SPAN} > ${hiSpan}::interval))
    ) k
    order by k.sort_key ${direction}, k.id ${direction} limit ${limit} offset ${offset}`;
}
