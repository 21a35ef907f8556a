import type { LedgerFilter } from '@parley/analytics';
import { wholeDays } from '@parley/projection-runner';
import { ledgerWhere } from './listLedger.js';

/**
 * The exact number of calls matching the filter (`total`) as one SQL expression and its
 * parameters. Filters on the rollup's columns only (model, provider, status, environment, source,
 * sourceSubtype): whole UTC days of the window are summed from llm_ledger_day_counts and the partial
 * days at its edges counted row by row. Any other filter (sessionIds, channels, channelTypes,
 * agentNames), or a window inside one day: every match is counted.
 */
export function ledgerTotalSql(filter: LedgerFilter): { sql: string; params: unknown[] } {
  const days = wholeDays(filter.from, filter.to);
  const rollupable = !filter.sessionIds && !filter.channels && !filter.channelTypes && !filter.agentNames;
  if (!rollupable || days === null) {
    const { sql, params } = ledgerWhere(filter);
    return { sql: `(select count(*) from llm_ledger where ${sql})`, params };
  }
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [
    `project_id = ${param(filter.projectId)}`,
    `day >= ${param(days.first)}`,
    `day < ${param(days.end)}`,
  ];
  const anyOf = (column: string, values: readonly string[] | undefined) => {
    if (values !== undefined) clauses.push(`${column} = any(${param(values)}::text[])`);
  };
  anyOf('model', filter.models);
  anyOf('provider', filter.providers);
  anyOf('environment', filter.environments);
  anyOf('source', filter.sources);
  anyOf('source_subtype', filter.sourceSubtypes);
  if (filter.status !== undefined) clauses.push(`status = ${param(filter.status)}`);
  const parts = [`(select coalesce(sum(n), 0) from llm_ledger_day_counts where ${clauses.join(' and ')})`];
  const edge = (from: Date, to: Date) => {
    const where = ledgerWhere({ ...filter, from, to }, params);
    parts.push(`(select count(*) from llm_ledger where ${where.sql})`);
  };
  if (filter.from < days.first) edge(filter.from, days.first);
  if (days.end < filter.to) edge(days.end, filter.to);
  return { sql: `(${parts.join(' + ')})`, params };
}
