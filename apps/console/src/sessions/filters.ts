import type { Query } from '../api.js';
import { rollingWindow } from '../ledger/filters.js';
import { listValues } from '../lists.js';

/**
 * The sessions screen's filters, kept in the hash query so a view can be shared (ids and filters
 * only, never a secret). Hash keys mirror the API's parameters, except the dates: `from` and `to`
 * are UTC calendar days, both inclusive (the API's `toDate` is exclusive, so `to` + 1 day is sent).
 * With neither, the window is the last 7 × 24 hours, rolling, as the ledger's "Last 7 days".
 */
export const STATUSES = [
  'active',
  'idle',
  'ended',
  'completed',
  'escalated',
  'abandoned',
  'archived',
] as const;
export const CONTAINMENT_TYPES = [
  'contained',
  'contained_resolved',
  'contained_partial',
  'contained_unresolved',
  'escalated',
  'abandoned',
] as const;
export const ENVIRONMENTS = ['dev', 'staging', 'production', 'working-copy'] as const;
export const SORT_FIELDS = [
  'createdAt',
  'lastActivityAt',
  'estimatedCost',
  'totalTokens',
  'messageCount',
] as const;
export const PAGE_SIZES = [25, 50, 100] as const;
/** Channel suggestions (any stored channel may be typed; families match together server-side). */
export const CHANNEL_SUGGESTIONS = [
  'web',
  'web_chat',
  'sdk_web',
  'voice',
  'http_async',
  'email',
  'api',
  'sms',
  'whatsapp',
];

export type SortField = (typeof SORT_FIELDS)[number];
export type SortOrder = 'asc' | 'desc';

export interface SessionFilters {
  /** YYYY-MM-DD, UTC, inclusive; null = the default window (the last 7 × 24 hours, rolling). */
  from: string | null;
  /** YYYY-MM-DD, UTC, inclusive; null = today. */
  to: string | null;
  status: string | null;
  containmentType: string[];
  channel: string[];
  environment: string[];
  callerNumber: string[];
  channelUId: string[];
  /** traceDimensions[key] = value, sorted by key. */
  dimensions: Array<[string, string]>;
  sortBy: SortField;
  sortOrder: SortOrder;
  offset: number;
  limit: number;
}

export const DEFAULT_FILTERS: SessionFilters = {
  from: null,
  to: null,
  status: null,
  containmentType: [],
  channel: [],
  environment: [],
  callerNumber: [],
  channelUId: [],
  dimensions: [],
  sortBy: 'createdAt',
  sortOrder: 'desc',
  offset: 0,
  limit: 50,
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DIM_PREFIX = 'dim.';

function isDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** `a,b` and repeated parameters both give lists; entries trimmed, empties and duplicates dropped. */
const list = (query: URLSearchParams, name: string): string[] => listValues(query.getAll(name));

function int(value: string | null, min: number, max: number, fallback: number): number {
  if (value === null || !/^\d+$/.test(value)) return fallback;
  const n = Number(value);
  return n >= min && n <= max ? n : fallback;
}

/** Reads the filters from a hash query; unknown or malformed values fall back to the defaults. */
export function parseFilters(query: URLSearchParams): SessionFilters {
  const from = query.get('from');
  const to = query.get('to');
  const status = query.get('status');
  const sortBy = query.get('sortBy');
  const sortOrder = query.get('sortOrder');
  const limit = int(query.get('limit'), 1, 1000, DEFAULT_FILTERS.limit);
  const dimensions: Array<[string, string]> = [];
  for (const [k, v] of query.entries()) {
    if (!k.startsWith(DIM_PREFIX)) continue;
    const key = k.slice(DIM_PREFIX.length);
    if (key && v && !dimensions.some(([d]) => d === key)) dimensions.push([key, v]);
  }
  dimensions.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    from: from && isDay(from) ? from : null,
    to: to && isDay(to) ? to : null,
    status: status && (STATUSES as readonly string[]).includes(status) ? status : null,
    containmentType: list(query, 'containmentType').filter((c) =>
      (CONTAINMENT_TYPES as readonly string[]).includes(c),
    ),
    channel: list(query, 'channel'),
    environment: list(query, 'environment').filter((e) => (ENVIRONMENTS as readonly string[]).includes(e)),
    callerNumber: query
      .getAll('callerNumber')
      .map((c) => c.trim())
      .filter((c, i, all) => c !== '' && all.indexOf(c) === i),
    channelUId: list(query, 'channelUId'),
    dimensions,
    sortBy: (SORT_FIELDS as readonly string[]).includes(sortBy ?? '')
      ? (sortBy as SortField)
      : DEFAULT_FILTERS.sortBy,
    sortOrder: sortOrder === 'asc' || sortOrder === 'desc' ? sortOrder : DEFAULT_FILTERS.sortOrder,
    offset: int(query.get('offset'), 0, Number.MAX_SAFE_INTEGER, 0),
    limit,
  };
}

/** The hash query of a filter set: defaults left out, so the plain screen has a plain address. */
export function filtersToQuery(f: SessionFilters): URLSearchParams {
  const q = new URLSearchParams();
  if (f.from) q.set('from', f.from);
  if (f.to) q.set('to', f.to);
  if (f.status) q.set('status', f.status);
  for (const v of f.containmentType) q.append('containmentType', v);
  for (const v of f.channel) q.append('channel', v);
  for (const v of f.environment) q.append('environment', v);
  for (const v of f.callerNumber) q.append('callerNumber', v);
  for (const v of f.channelUId) q.append('channelUId', v);
  for (const [k, v] of f.dimensions) q.set(`${DIM_PREFIX}${k}`, v);
  if (f.sortBy !== DEFAULT_FILTERS.sortBy) q.set('sortBy', f.sortBy);
  if (f.sortOrder !== DEFAULT_FILTERS.sortOrder) q.set('sortOrder', f.sortOrder);
  if (f.limit !== DEFAULT_FILTERS.limit) q.set('limit', String(f.limit));
  if (f.offset > 0) q.set('offset', String(f.offset));
  return q;
}

export function addDays(day: string, days: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** The default window's span: the same as the ledger's "Last 7 days". */
export const DEFAULT_WINDOW_MS = 7 * 24 * 3_600_000;

/**
 * The days the form shows: the chosen ones, or the UTC days the default window touches (the first
 * one partly: the window starts 7 × 24 hours before the next whole minute).
 */
export function effectiveWindow(f: SessionFilters, now: Date): { from: string; to: string } {
  const to = f.to ?? utcDay(now);
  const from =
    f.from ??
    (f.to === null ? utcDay(new Date(rollingWindow(DEFAULT_WINDOW_MS, now).fromDate)) : addDays(to, -6));
  return { from, to };
}

/** The API window: the chosen days (`toDate` exclusive: the day after `to`), or the rolling default. */
function apiWindow(f: SessionFilters, now: Date): { fromDate: string; toDate: string } {
  if (f.from === null && f.to === null) return rollingWindow(DEFAULT_WINDOW_MS, now);
  const { from, to } = effectiveWindow(f, now);
  return { fromDate: from, toDate: addDays(to, 1) };
}

/** The sessions API query of a filter set. */
export function filtersToApiQuery(f: SessionFilters, now: Date): Query {
  const query: Query = {
    ...apiWindow(f, now),
    status: f.status,
    containmentType: f.containmentType,
    channel: f.channel,
    environment: f.environment,
    callerNumber: f.callerNumber,
    channelUId: f.channelUId,
    sortBy: f.sortBy,
    sortOrder: f.sortOrder,
    limit: f.limit,
    offset: f.offset,
  };
  for (const [k, v] of f.dimensions) query[`traceDimensions[${k}]`] = v;
  return query;
}

/** `plan=pro, region=eu` ⇄ dimension pairs (the filter form's text box). */
export function parseDimensions(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key && value && !out.some(([k]) => k === key)) out.push([key, value]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function formatDimensions(dimensions: ReadonlyArray<readonly [string, string]>): string {
  return dimensions.map(([k, v]) => `${k}=${v}`).join(', ');
}

/** Comma-separated text box → list (trimmed, no empties, no duplicates). */
export const parseList = (text: string): string[] => listValues([text]);
