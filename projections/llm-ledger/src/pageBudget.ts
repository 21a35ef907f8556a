import { jsonBytes, PAGE_BODY_LIMIT_BYTES, PAGE_ITEMS_BUDGET_BYTES } from '@parley/analytics';
import type { LedgerRecord } from './ledgerRecord.js';

export { ENVELOPE_RESERVE_BYTES, fitCount, jsonBytes } from '@parley/analytics';

/** Spec 000 §8: a ledger page's response body stays within 1 MiB. */
export const RESPONSE_BODY_LIMIT_BYTES = PAGE_BODY_LIMIT_BYTES;

/** What the serialised `generations` array (brackets and commas included) may take by default. */
export const GENERATIONS_BUDGET_BYTES = PAGE_ITEMS_BUDGET_BYTES;

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
