import { dimensionMatchKey, dimensionNameKey } from './dimensionRow.js';
import type { SessionListFilter } from './filter.js';

/**
 * The WHERE clause of the session list over the view `session_summaries` (alias `s`), with its
 * parameters. Different filters AND together; the values of one filter OR (`= any($n)`). Only rows
 * a SessionStarted has been read for are listed: the others have no createdAt, channel or environment.
 * Parameters are appended to `params` (given: one statement holds several clauses).
 */
export function sessionListWhere(
  filter: SessionListFilter,
  params: unknown[] = [],
): { where: string; params: unknown[] } {
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [`s.project_id = ${param(filter.projectId)}`, 's.created_at is not null'];
  if (filter.from) clauses.push(`s.created_at >= ${param(filter.from)}`);
  if (filter.to) clauses.push(`s.created_at < ${param(filter.to)}`);
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (values !== undefined) clauses.push(`s.${column} = any(${param(values)}::text[])`);
  };
  anyOf('id', filter.sessionIds);
  anyOf('containment_type', filter.containmentTypes);
  anyOf('environment', filter.environments);
  anyOf('channel_user_id', filter.channelUserIds);
  anyOf('channel', filter.channels);
  if (filter.callerNumberKeys !== undefined) {
    anyOf('caller_number_key', filter.callerNumberKeys);
    // Spec 000 §4.2 callerNumber rule 9: playground and Studio debug sessions never match.
    clauses.push(`s.is_test is not true and s.channel <> 'web_debug'`);
  }
  if (filter.status !== undefined) clauses.push(`s.status = ${param(filter.status)}`);
  const dimensions = Object.entries(filter.traceDimensions ?? {});
  // The joined start's startedAt is the summary's created_at: the same range, on the dimension's index.
  const range =
    dimensions.length === 0
      ? ''
      : (filter.from ? ` and d.started_at >= ${param(filter.from)}::timestamptz` : '') +
        (filter.to ? ` and d.started_at < ${param(filter.to)}::timestamptz` : '');
  for (const [name, value] of dimensions) {
    // The hash finds candidates through the index; the jsonb recheck keeps the match exact.
    clauses.push(
      `exists (select 1 from session_dimensions d where d.project_id = s.project_id` +
        ` and d.session_id = s.id and d.name_key = ${param(dimensionNameKey(name))}` +
        ` and d.match_key = ${param(dimensionMatchKey(name, value))}${range}` +
        ` and d.started_event_id = s.started_event_id)`,
    );
  }
  if (dimensions.length > 0) {
    clauses.push(`s.trace_dimensions @> ${param(JSON.stringify(Object.fromEntries(dimensions)))}::jsonb`);
  }
  return { where: clauses.join(' and '), params };
}
