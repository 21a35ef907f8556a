/**
 * The normalised filters: the output of this package's request parsing and the input of the
 * projections' query functions (session-summaries, llm-ledger). Every value is already in its stored
 * spelling: aliases expanded, caller numbers keyed, sources canonical.
 */
export interface SessionListFilter {
  projectId: string;
  from?: Date; // createdAt >= from (inclusive)
  to?: Date; // createdAt < to (exclusive)
  sessionIds?: string[]; // up to 10,000
  containmentTypes?: string[]; // OR within
  environments?: string[]; // stored spellings, e.g. ['dev', 'development'] for `dev`
  channelUserIds?: string[];
  callerNumberKeys?: string[]; // already normalised match keys
  channels?: string[]; // stored spellings after family expansion
  traceDimensions?: Record<string, string>; // all must match exactly
  status?: string;
  /** Our extension (docs/api.md): absent means the default, createdAt descending (canonical for the page cache key). */
  sort?: { field: SessionSortField; direction: SortDirection };
  limit: number; // 1..10000
  offset: number; // >= 0
}

/** The session list's sort keys (our extension of spec 000 §4.2); `messageCount` is messageCount.total. */
export const SESSION_SORT_FIELDS = [
  'createdAt',
  'lastActivityAt',
  'estimatedCost',
  'totalTokens',
  'messageCount',
] as const;
export type SessionSortField = (typeof SESSION_SORT_FIELDS)[number];

export const LEDGER_SORT_FIELDS = ['timestamp', 'latencyMs', 'cost', 'totalTokens'] as const;
export type LedgerSortField = (typeof LEDGER_SORT_FIELDS)[number];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];
export const DATA_MODES = ['summary', 'full'] as const;
export type DataMode = (typeof DATA_MODES)[number];

/** The ledger's window and filters: what a call must match (the ledger page and its time series). */
export interface LedgerMatch {
  projectId: string;
  from: Date; // inclusive
  to: Date; // exclusive
  sessionIds?: string[];
  channels?: string[]; // exact stored values
  channelTypes?: string[];
  sources?: string[]; // canonical source names
  sourceSubtypes?: string[]; // canonical subtype names
  status?: 'success' | 'failed';
  models?: string[]; // 'unknown' matches calls without a model
  providers?: string[]; // 'unknown' matches calls without a provider
  environments?: string[]; // as the ledger stores them: development, staging, production, working-copy
  agentNames?: string[];
}

export interface LedgerFilter extends LedgerMatch {
  sort: { field: LedgerSortField; direction: SortDirection };
  dataMode: DataMode;
  limit: number;
  offset: number;
}

export const LEDGER_STATS_BUCKETS = ['minute', 'hour', 'day'] as const;
export type LedgerStatsBucket = (typeof LEDGER_STATS_BUCKETS)[number];
export const LEDGER_STATS_GROUP_BY = ['model', 'provider', 'source'] as const;
export type LedgerStatsGroupBy = (typeof LEDGER_STATS_GROUP_BY)[number];

/** GET …/llm-ledger/stats: the ledger's match, bucketed (UTC, aligned to the epoch) and grouped. */
export interface LedgerStatsFilter extends LedgerMatch {
  bucket: LedgerStatsBucket;
  groupBy: LedgerStatsGroupBy;
}
