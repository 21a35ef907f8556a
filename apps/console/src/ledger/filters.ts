import type { Query } from '../api.js';
import { nextSortOrder, type SortOrder } from '../components/SortHeader.js';
import { listValues } from '../lists.js';
import type { Bucket, GroupBy } from './types.js';

/**
 * The ledger screen's state, kept in the hash query (`#/p/{id}/ledger?range=7d&model=a&model=b…`) so a
 * view can be bookmarked and shared: only filters, never a credential. Pure: no DOM, no fetch.
 */
export const RANGES = ['1h', '6h', '24h', '7d', '30d', 'custom'] as const;
export type Range = (typeof RANGES)[number];
export const SORT_FIELDS = ['timestamp', 'latencyMs', 'cost', 'totalTokens'] as const;
export type SortBy = (typeof SORT_FIELDS)[number];
export type { SortOrder };
export const GROUP_BYS: readonly GroupBy[] = ['model', 'provider', 'source'];
export const BUCKETS: readonly (Bucket | 'auto')[] = ['auto', 'minute', 'hour', 'day'];
export const STATUSES = ['', 'success', 'failed'] as const;
export type StatusFilter = (typeof STATUSES)[number];
/** Multi-valued filters, in the order the API checks them. */
export const LIST_FILTERS = ['model', 'provider', 'source', 'agentName', 'channel', 'environment'] as const;
export type ListFilter = (typeof LIST_FILTERS)[number];

export const PAGE_SIZE = 50;

export interface LedgerView {
  range: Range;
  /** ISO instants, only with range `custom`. */
  from: string | null;
  to: string | null;
  filters: Record<ListFilter, string[]>;
  status: StatusFilter;
  sortBy: SortBy;
  sortOrder: SortOrder;
  /** dataMode=full: rows carry their payload. */
  full: boolean;
  offset: number;
  groupBy: GroupBy;
  bucket: Bucket | 'auto';
}

export const DEFAULT_VIEW: LedgerView = {
  range: '7d',
  from: null,
  to: null,
  filters: { model: [], provider: [], source: [], agentName: [], channel: [], environment: [] },
  status: '',
  sortBy: 'timestamp',
  sortOrder: 'desc',
  full: false,
  offset: 0,
  groupBy: 'model',
  bucket: 'auto',
};

const RANGE_MS: Record<Exclude<Range, 'custom'>, number> = {
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 24 * 3_600_000,
  '30d': 30 * 24 * 3_600_000,
};

function oneOf<T extends string>(value: string | null, allowed: readonly T[], fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function isoOrNull(value: string | null): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? new Date(t).toISOString() : null;
}

export { listValues };

/** Reads the hash query; anything unknown or malformed falls back to the default. */
export function parseLedgerQuery(query: URLSearchParams): LedgerView {
  const from = isoOrNull(query.get('from'));
  const to = isoOrNull(query.get('to'));
  let range = oneOf(query.get('range'), RANGES, DEFAULT_VIEW.range);
  if (range === 'custom' && (!from || !to)) range = DEFAULT_VIEW.range;
  const offset = Number(query.get('offset') ?? '0');
  const filters = {} as Record<ListFilter, string[]>;
  for (const name of LIST_FILTERS) filters[name] = listValues(query.getAll(name));
  return {
    range,
    from: range === 'custom' ? from : null,
    to: range === 'custom' ? to : null,
    filters,
    status: oneOf(query.get('status'), STATUSES, ''),
    sortBy: oneOf(query.get('sortBy'), SORT_FIELDS, DEFAULT_VIEW.sortBy),
    sortOrder: oneOf(query.get('sortOrder'), ['asc', 'desc'] as const, DEFAULT_VIEW.sortOrder),
    full: query.get('full') === '1',
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
    groupBy: oneOf(query.get('groupBy'), GROUP_BYS, DEFAULT_VIEW.groupBy),
    bucket: oneOf(query.get('bucket'), BUCKETS, DEFAULT_VIEW.bucket),
  };
}

/** The hash query of a view: defaults left out, list filters repeated, a stable parameter order. */
export function ledgerHashQuery(view: LedgerView): URLSearchParams {
  const q = new URLSearchParams();
  if (view.range !== DEFAULT_VIEW.range) q.set('range', view.range);
  if (view.range === 'custom' && view.from && view.to) {
    q.set('from', view.from);
    q.set('to', view.to);
  }
  for (const name of LIST_FILTERS) for (const v of view.filters[name]) q.append(name, v);
  if (view.status) q.set('status', view.status);
  if (view.sortBy !== DEFAULT_VIEW.sortBy) q.set('sortBy', view.sortBy);
  if (view.sortOrder !== DEFAULT_VIEW.sortOrder) q.set('sortOrder', view.sortOrder);
  if (view.full) q.set('full', '1');
  if (view.offset > 0) q.set('offset', String(view.offset));
  if (view.groupBy !== DEFAULT_VIEW.groupBy) q.set('groupBy', view.groupBy);
  if (view.bucket !== DEFAULT_VIEW.bucket) q.set('bucket', view.bucket);
  return q;
}

export interface Window {
  fromDate: string;
  toDate: string;
}

/**
 * The last `spanMs` up to the next whole minute after `now`, so reloads within a minute agree. The
 * ledger's presets and the sessions screen's default window (the last 7 days) are this.
 */
export function rollingWindow(spanMs: number, now: Date): Window {
  const end = Math.floor(now.getTime() / 60_000) * 60_000 + 60_000;
  return { fromDate: new Date(end - spanMs).toISOString(), toDate: new Date(end).toISOString() };
}

/** The API window of a view. */
export function resolveWindow(view: LedgerView, now: Date): Window {
  if (view.range === 'custom' && view.from && view.to) return { fromDate: view.from, toDate: view.to };
  return rollingWindow(RANGE_MS[view.range === 'custom' ? '24h' : view.range], now);
}

function filterQuery(view: LedgerView, window: Window): Query {
  const q: Query = { fromDate: window.fromDate, toDate: window.toDate };
  for (const name of LIST_FILTERS) if (view.filters[name].length > 0) q[name] = view.filters[name];
  if (view.status) q.status = view.status;
  return q;
}

/** Query of GET …/llm-ledger for one page. */
export function ledgerApiQuery(view: LedgerView, window: Window, limit = PAGE_SIZE): Query {
  return {
    ...filterQuery(view, window),
    sortBy: view.sortBy,
    sortOrder: view.sortOrder,
    dataMode: view.full ? 'full' : 'summary',
    limit,
    offset: view.offset,
  };
}

/** Query of GET …/llm-ledger/stats: the same filters, plus bucket (unless automatic) and groupBy. */
export function statsApiQuery(view: LedgerView, window: Window): Query {
  return {
    ...filterQuery(view, window),
    groupBy: view.groupBy,
    ...(view.bucket === 'auto' ? {} : { bucket: view.bucket }),
  };
}

/** Clicking a sortable header (the rule of SortHeader), back to the first page. */
export function nextSort(
  view: LedgerView,
  field: SortBy,
): Pick<LedgerView, 'sortBy' | 'sortOrder' | 'offset'> {
  return { sortBy: field, sortOrder: nextSortOrder(view.sortBy, view.sortOrder, field), offset: 0 };
}
