import type { LedgerRecord } from './ledgerRecord.js';

/** Spec 000 §8: a ledger page's response body stays within 1 MiB. */
export const RESPONSE_BODY_LIMIT_BYTES = 1_048_576;

/**
 * Room left for the page envelope around `generations` (success, statusCode, total, limit, offset,
 * dataMode, hasMore and the API's freshness field: a few hundred bytes), with a wide margin.
 */
export const ENVELOPE_RESERVE_BYTES = 4_096;

/** What the serialised `generations` array (brackets and commas included) may take by default. */
export const GENERATIONS_BUDGET_BYTES = RESPONSE_BODY_LIMIT_BYTES - ENVELOPE_RESERVE_BYTES;

/** UTF-8 bytes of a value serialised as JSON, as the API sends it. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** What `"payload":` adds after a record's last field, beside the payload itself. */
export const PAYLOAD_KEY_BYTES = ',"payload":'.length;

// Every field at its shortest serialisation: no record can be smaller.
const smallest: Required<Omit<LedgerRecord, 'payload'>> = {
  id: '',
  model: '',
  agentName: '',
  provider: '',
  environment: '',
  status: 'failed',
  inputTokens: 0,
  cachedTokens: 0,
  completionTokens: 0,
  reasoningTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  latencyMs: 0,
  timeToFirstTokenMs: 0,
  streamingUsed: true,
  cost: 0,
  timestamp: new Date(0).toISOString(),
  sessionId: '',
  callId: '',
  traceId: '',
  eventId: '',
  source: '',
  sourceSubtype: '',
  sourceLabel: '',
  sourceSubtypeLabel: '',
  sourceId: '',
  channel: '',
  channelType: '',
  statusCode: 0,
  payloadState: 'available',
};

/** A lower bound of any record's serialised size. */
export const MIN_RECORD_BYTES = jsonBytes(smallest);

/**
 * The most rows a page can hold within `budget`, whatever they contain: fetching more than this
 * from the database would be wasted (a 10,000-row summary page is several MiB).
 */
export function maxRowsWithin(budget: number): number {
  return Math.max(1, Math.floor((budget - 1) / (MIN_RECORD_BYTES + 1)));
}

/**
 * How many of the records, taken in order, fit in a JSON array of at most `budget` bytes, given
 * each record's serialised size. At least one when there is one: a page always makes progress
 * (PAYLOAD_LIMIT_BYTES keeps any single record well under the cap).
 */
export function fitCount(sizes: readonly number[], budget: number): number {
  let used = 2; // []
  for (let i = 0; i < sizes.length; i++) {
    const add = (sizes[i] ?? 0) + (i > 0 ? 1 : 0);
    if (i > 0 && used + add > budget) return i;
    used += add;
  }
  return sizes.length;
}
