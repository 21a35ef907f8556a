import { wholeDays } from '@parley/projection-runner';
import { dimensionMatchKey } from './dimensionRow.js';
import type { SessionListFilter } from './filter.js';
import { sessionListWhere } from './sessionListWhere.js';

/**
 * Which rollup can count the filter's matches of whole days, if any. session_day_counts groups by
 * environment, channel, status and containment type; session_dimension_day_counts by one
 * (name, value) pair. Other filters (sessionIds, channelUId, callerNumber, several dimensions, a
 * dimension with other filters) are counted row by row.
 */
function rollupFor(filter: SessionListFilter): 'day' | 'dimension' | null {
  if (filter.from === undefined || filter.to === undefined) return null;
  if (filter.sessionIds || filter.channelUserIds || filter.callerNumberKeys) return null;
  const dimensions = Object.keys(filter.traceDimensions ?? {}).length;
  if (dimensions === 0) return 'day';
  const others =
    filter.containmentTypes || filter.environments || filter.channels || filter.status !== undefined;
  return dimensions === 1 && !others ? 'dimension' : null;
}

/**
 * A SQL expression for the exact number of sessions matching the filter (`total`), with its
 * parameters appended to `params`. Where a rollup applies, whole UTC days are summed from it and
 * only the partial days at the range's edges are counted from the summaries; otherwise every
 * match is counted. The rollups are kept in the same transactions as the summaries (the runner),
 * so both ways give the same number (sessionTotal.int.spec.ts compares them).
 */
export function sessionTotalSql(filter: SessionListFilter, params: unknown[]): string {
  const rollup = rollupFor(filter);
  const days = filter.from && filter.to ? wholeDays(filter.from, filter.to) : null;
  const countRows = (f: SessionListFilter) =>
    `(select count(*) from session_summaries s where ${sessionListWhere(f, params).where})`;
  if (rollup === null || days === null) return countRows(filter);
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [
    `r.project_id = ${param(filter.projectId)}`,
    `r.day >= ${param(days.first)}`,
    `r.day < ${param(days.end)}`,
  ];
  let table: string;
  if (rollup === 'day') {
    table = 'session_day_counts';
    const anyOf = (column: string, values: readonly string[] | undefined) => {
      if (values !== undefined) clauses.push(`r.${column} = any(${param(values)}::text[])`);
    };
    anyOf('environment', filter.environments);
    anyOf('channel', filter.channels);
    anyOf('containment_type', filter.containmentTypes);
    if (filter.status !== undefined) clauses.push(`r.status = ${param(filter.status)}`);
  } else {
    table = 'session_dimension_day_counts';
    const [name, value] = Object.entries(filter.traceDimensions ?? {})[0] as [string, string];
    clauses.push(`r.match_key = ${param(dimensionMatchKey(name, value))}`);
  }
  const parts = [`(select coalesce(sum(r.n), 0) from ${table} r where ${clauses.join(' and ')})`];
  if (filter.from && filter.from < days.first) parts.push(countRows({ ...filter, to: days.first }));
  if (filter.to && days.end < filter.to) parts.push(countRows({ ...filter, from: days.end }));
  return `(${parts.join(' + ')})`;
}
