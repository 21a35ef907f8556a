import { type ParseResult, reject, runParser } from './analyticsQueryError.js';
import { readChoice, readDateRange, requireDates } from './dateRangeAndPaging.js';
import {
  LEDGER_STATS_BUCKETS,
  LEDGER_STATS_GROUP_BY,
  type LedgerStatsBucket,
  type LedgerStatsFilter,
} from './filters.js';
import { readLedgerMatch } from './parseLedgerQuery.js';
import type { AnalyticsQuery } from './queryValues.js';

/** Milliseconds of each bucket (UTC: a day is always 24 h). */
export const BUCKET_MS: Readonly<Record<LedgerStatsBucket, number>> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** More buckets than this in the window is a 400 naming `bucket`. */
export const MAX_BUCKETS = 1_000;

/** The default bucket of a window: ≤ 6 h minute, ≤ 14 d hour, else day. */
export function defaultBucket(from: Date, to: Date): LedgerStatsBucket {
  const span = to.getTime() - from.getTime();
  if (span <= 6 * BUCKET_MS.hour) return 'minute';
  if (span <= 14 * BUCKET_MS.day) return 'hour';
  return 'day';
}

/**
 * How many buckets (aligned to the Unix epoch, UTC) the window [from, to) touches: the number of
 * points the busiest series could have. 0 for an empty window.
 */
export function bucketCount(from: Date, to: Date, bucket: LedgerStatsBucket): number {
  const size = BUCKET_MS[bucket];
  const start = from.getTime();
  const end = to.getTime();
  if (end <= start) return 0;
  return Math.floor((end - 1) / size) - Math.floor(start / size) + 1;
}

/**
 * GET /api/public/analytics/projects/{projectId}/llm-ledger/stats: the ledger's window and filters
 * (the same parser, the same errors), then `bucket` and `groupBy`. Checks in the ledger's order:
 * dates and the required range, the two controls (bucket, its count, groupBy), then the filters.
 */
export function parseLedgerStatsQuery(
  projectId: string,
  query: AnalyticsQuery,
): ParseResult<LedgerStatsFilter> {
  return runParser(() => {
    const { from, to } = requireDates(readDateRange(query));
    const bucket = readChoice(query, 'bucket', LEDGER_STATS_BUCKETS, defaultBucket(from, to));
    const buckets = bucketCount(from, to, bucket);
    if (buckets > MAX_BUCKETS) {
      reject('VALIDATION_ERROR', `bucket ${bucket} gives ${buckets} buckets; at most ${MAX_BUCKETS}`, {
        parameter: 'bucket',
        reason: 'too_many_buckets',
        max: MAX_BUCKETS,
        received: buckets,
        required: `bucket: at most ${MAX_BUCKETS} buckets in the window`,
      });
    }
    const groupBy = readChoice(query, 'groupBy', LEDGER_STATS_GROUP_BY, 'model');
    return { ...readLedgerMatch(projectId, from, to, query), bucket, groupBy };
  });
}
