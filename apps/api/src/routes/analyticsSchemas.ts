import {
  CONTAINMENT_TYPE_FILTERS,
  DATA_MODES,
  LEDGER_SORT_FIELDS,
  LEDGER_STATS_BUCKETS,
  LEDGER_STATS_GROUP_BY,
  LEDGER_STATUSES,
  MAX_BUCKETS,
  MAX_LIMIT,
  SESSION_ENVIRONMENT_FILTERS,
  SESSION_SORT_FIELDS,
  SESSION_STATUS_FILTERS,
  SORT_DIRECTIONS,
} from '@parley/analytics';
import { PAYLOAD_STATES } from '@parley/projection-llm-ledger';
import { z } from 'zod';

/**
 * The shapes of the two analytics routes, for /openapi.json only: the routes use
 * `validation: 'document'` and @parley/analytics parses the query itself, so it can
 * answer the spec's own 400 codes (spec 000 §4.2, §4.3, §7).
 */

/** A parameter that may be comma-separated and/or repeated. */
const multi = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .describe(`${description} Comma-separated or repeated.`);
const single = (description: string) => z.string().optional().describe(description);

const dateRange = {
  fromDate: single('Inclusive ISO 8601 start (date or date-time; no zone means UTC).'),
  toDate: single('Exclusive ISO 8601 end.'),
};
const paging = {
  limit: single(
    `Integer 1..${MAX_LIMIT}, default 100. A page can hold fewer rows so the body stays within 1 MiB.`,
  ),
  offset: single('Integer >= 0, default 0.'),
};

export const projectParams = z.object({
  projectId: z.string().min(1).describe('Project id (not the slug); the API key must be bound to it.'),
});

export const sessionListQuery = z.object({
  ...dateRange,
  sessionIds: multi('Up to 10,000 session ids; may replace the date range.'),
  containmentType: multi(`Up to 100 of ${CONTAINMENT_TYPE_FILTERS.join(', ')} (case-sensitive).`),
  environment: multi(
    `Up to 4 of ${SESSION_ENVIRONMENT_FILTERS.join(', ')}; \`dev\` matches both stored spellings.`,
  ),
  channelUId: multi('End-user identities recorded on the channel, up to 100.'),
  callerNumber: multi(
    'Caller numbers or identities, up to 100 entries of at most 512 characters; send + as %2B (an unencoded + is read as a space and matches the same).',
  ),
  channel: multi(
    'Up to 50 distinct channels of at most 128 characters; families (web, voice) match together.',
  ),
  'traceDimensions[key]': single(
    'Exact match on the custom dimension `key` (write the dimension name in place of key; URL-encode the brackets if the client does not). Repeat with other keys to require all, up to 20.',
  ),
  status: single(`One of ${SESSION_STATUS_FILTERS.join(', ')}; only the first value is used.`),
  ...paging,
  sortBy: single(
    `${SESSION_SORT_FIELDS.join(', ')} (messageCount.total); default createdAt. Ties by id in the same direction. Our extension of the spec.`,
  ),
  sortOrder: single(`${SORT_DIRECTIONS.join(' or ')}; default desc. Our extension of the spec.`),
});

/** A body field standing for a query parameter: one value, or the parameter repeated. */
const bodyMulti = (description: string) =>
  z
    .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
    .nullable()
    .optional()
    .describe(`${description} A string (comma-separated values allowed) or an array.`);
const bodySingle = (description: string) =>
  z.union([z.string(), z.number()]).nullable().optional().describe(description);

/**
 * POST …/sessions/search: the GET's query as a JSON object (sessionSearchQuery in @parley/analytics).
 * Unknown fields are ignored, as unknown query parameters are.
 */
export const sessionSearchBody = z
  .object({
    fromDate: bodySingle('Inclusive ISO 8601 start (date or date-time; no zone means UTC).'),
    toDate: bodySingle('Exclusive ISO 8601 end.'),
    sessionIds: bodyMulti('Up to 10,000 session ids; may replace the date range.'),
    containmentType: bodyMulti(`Up to 100 of ${CONTAINMENT_TYPE_FILTERS.join(', ')} (case-sensitive).`),
    environment: bodyMulti(`Up to 4 of ${SESSION_ENVIRONMENT_FILTERS.join(', ')}.`),
    channelUId: bodyMulti('End-user identities recorded on the channel, up to 100.'),
    callerNumber: bodyMulti(
      'Caller numbers or identities, up to 100 entries of at most 512 characters; + is sent as is.',
    ),
    channel: bodyMulti('Up to 50 distinct channels of at most 128 characters.'),
    traceDimensions: z
      .record(z.string(), z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]))
      .nullable()
      .optional()
      .describe('Dimension name to the exact value it must have; up to 20 names, all must match.'),
    status: bodySingle(`One of ${SESSION_STATUS_FILTERS.join(', ')}.`),
    limit: bodySingle(`Integer 1..${MAX_LIMIT}, default 100; a page stays within 1 MiB.`),
    offset: bodySingle('Integer >= 0, default 0.'),
    sortBy: bodySingle(`${SESSION_SORT_FIELDS.join(', ')}; default createdAt. Our extension.`),
    sortOrder: bodySingle(`${SORT_DIRECTIONS.join(' or ')}; default desc. Our extension.`),
  })
  .describe('The filters of the GET session list, as JSON');

/** The ledger's window and filters: the page's and the time series' (parseLedgerQuery's readLedgerMatch). */
const ledgerMatch = {
  ...dateRange,
  sessionIds: multi('Up to 10,000 session ids.'),
  channel: multi('Exact stored channel names, up to 50 distinct.'),
  channelType: multi('Exact transport-specific channel types.'),
  source: multi('Origin of the call; current and older names, case-insensitive, `-` and space read as `_`.'),
  sourceSubtype: multi('Purpose of the call; older spellings translated.'),
  status: single(`One of ${LEDGER_STATUSES.join(', ')}.`),
  model: multi('Exact model ids; `unknown` finds calls without one.'),
  provider: multi('Exact providers; `unknown` finds calls without one.'),
  environment: multi('development, staging, production or working-copy, matched as stored.'),
  agentName: multi('Exact effective agent names.'),
};

export const ledgerQuery = z.object({
  ...ledgerMatch,
  ...paging,
  sortBy: single(`${LEDGER_SORT_FIELDS.join(', ')}; default timestamp.`),
  sortOrder: single(`${SORT_DIRECTIONS.join(' or ')}; default desc.`),
  dataMode: single(`${DATA_MODES.join(' or ')} (adds payload where stored); default summary.`),
});

export const ledgerStatsQuery = z.object({
  ...ledgerMatch,
  bucket: single(
    `${LEDGER_STATS_BUCKETS.join(', ')} (UTC); default by window: up to 6 h minute, up to 14 days hour, else day. At most ${MAX_BUCKETS} buckets in the window.`,
  ),
  groupBy: single(`${LEDGER_STATS_GROUP_BY.join(', ')}; default model.`),
});

export const freshnessShape = z
  .object({
    position: z
      .string()
      .nullable()
      .describe(
        'Log position (commit/prepare) of the last event the read model applied; null when it has applied none.',
      ),
    recordedAt: z.iso
      .datetime()
      .nullable()
      .describe('When that event was recorded in the log; null when none.'),
  })
  .describe('How far the read model behind this page has caught up with the event log.');

/** A read model's freshness as every page envelope carries it (`freshnessShape`): the time as ISO. */
export const wireFreshness = (f: { position: string | null; recordedAt: Date | null }) => ({
  position: f.position,
  recordedAt: f.recordedAt === null ? null : f.recordedAt.toISOString(),
});

const isoTimestamp = z.iso.datetime();
const count = z.int().min(0);

export const sessionSummaryShape = z.object({
  id: z.string(),
  channel: z.string(),
  environment: z.string(),
  status: z.string(),
  containmentType: z.string(),
  createdAt: isoTimestamp,
  lastActivityAt: isoTimestamp,
  endedAt: isoTimestamp.nullable(),
  messageCount: z.object({ user: count, agent: count, total: count }),
  traceEventCount: z.object({
    llm_call: count,
    decision: count,
    tool_call: count,
    error: count,
    total: count,
  }),
  tokenCount: z.object({
    inputTokens: count,
    cachedTokens: count,
    completionTokens: count,
    reasoningTokens: count,
    outputTokens: count,
    totalTokens: count,
  }),
  traceDimensions: z.record(z.string(), z.string()),
  estimatedCost: z.number(),
  durationMs: count,
  idleDurationMs: count,
  isTest: z.boolean().nullable(),
  voiceCalls: z
    .array(
      z.object({
        callId: z.string(),
        status: z
          .string()
          .describe('The latest lifecycle status: initiated, ringing, in-progress, completed, failed, …'),
        at: z.string().describe('When it happened (ISO 8601)'),
        durationSeconds: z.int().nullable().describe('The call duration once reported'),
      }),
    )
    .optional()
    .describe("Parley's extension: the session's voice calls; absent for a session without calls"),
});

export const sessionPageShape = z.object({
  success: z.literal(true),
  total: count,
  offset: count,
  limit: z.int().min(1).max(MAX_LIMIT),
  hasMore: z.boolean(),
  sessions: z.array(sessionSummaryShape),
  freshness: freshnessShape,
});

/** A string of spec 000 §2.3 that a call may not have recorded: `''` then, never null. */
const notRecordedEmpty = z.string().describe("'' when the call did not record it (e.g. a design-time call)");

export const ledgerRecordShape = z.object({
  id: z.string(),
  model: z.string(),
  agentName: z.string(),
  provider: z.string(),
  environment: notRecordedEmpty,
  status: z.enum(LEDGER_STATUSES),
  inputTokens: count,
  cachedTokens: count,
  completionTokens: count,
  reasoningTokens: count,
  outputTokens: count,
  totalTokens: count,
  latencyMs: count,
  timeToFirstTokenMs: count,
  streamingUsed: z.boolean(),
  cost: z.number(),
  timestamp: isoTimestamp,
  sessionId: notRecordedEmpty,
  callId: z.string(),
  traceId: notRecordedEmpty,
  eventId: z.string(),
  source: z.string(),
  sourceSubtype: z.string(),
  sourceLabel: z.string(),
  sourceSubtypeLabel: z.string(),
  sourceId: notRecordedEmpty,
  channel: notRecordedEmpty,
  channelType: notRecordedEmpty,
  statusCode: z.int(),
  payloadState: z.enum(PAYLOAD_STATES),
  payload: z
    .object({ prompt: z.unknown(), response: z.unknown() })
    .optional()
    .describe('Only with dataMode=full and payloadState available.'),
});

export const ledgerPageShape = z.object({
  success: z.literal(true),
  statusCode: z.literal(200),
  total: count,
  limit: z.int().min(1).max(MAX_LIMIT),
  offset: count,
  dataMode: z.enum(DATA_MODES),
  hasMore: z.boolean(),
  generations: z.array(ledgerRecordShape),
  freshness: freshnessShape,
});

const percentileMs = z
  .int()
  .min(0)
  .nullable()
  .describe('percentile_cont of latencyMs, rounded to whole ms; null when no call has a latency.');

export const ledgerStatsPointShape = z.object({
  t: isoTimestamp.describe('Start of the bucket (UTC).'),
  calls: count,
  failed: count,
  cost: z.number(),
  inputTokens: count,
  outputTokens: count,
  totalTokens: count,
  latencyP50Ms: percentileMs,
  latencyP95Ms: percentileMs,
});

export const ledgerStatsShape = z.object({
  success: z.literal(true),
  bucket: z.enum(LEDGER_STATS_BUCKETS),
  groupBy: z.enum(LEDGER_STATS_GROUP_BY),
  fromDate: isoTimestamp,
  toDate: isoTimestamp,
  series: z
    .array(
      z.object({
        key: z.string().describe('The group (`unknown` for calls without one; `other`: the folded groups).'),
        points: z.array(ledgerStatsPointShape).describe('Buckets with calls only, by time.'),
      }),
    )
    .describe('By total cost descending, then key; at most 20 (the rest folded into `other`).'),
  totals: z.array(
    z.object({
      key: z.string(),
      calls: count,
      failed: count,
      cost: z.number(),
      totalTokens: count,
      latencyP50Ms: percentileMs,
      latencyP95Ms: percentileMs,
    }),
  ),
  freshness: freshnessShape,
});
