export type { LedgerPayload, LedgerRecord } from './ledgerRecord.js';
export {
  ledgerEnvironment,
  ledgerId,
  PAYLOAD_LIMIT_BYTES,
  PAYLOAD_STATES,
  type PayloadState,
  UNKNOWN,
} from './ledgerRow.js';
export {
  type LedgerStats,
  type LedgerStatsPoint,
  type LedgerStatsTotal,
  ledgerStats,
  MAX_SERIES,
  OTHER_SERIES,
} from './ledgerStats.js';
export { type LedgerPage, type ListLedgerOptions, listLedger } from './listLedger.js';
export { type LedgerPayloadRow, type LedgerRow, llmLedgerProjection } from './llmLedgerProjection.js';
export {
  ENVELOPE_RESERVE_BYTES,
  GENERATIONS_BUDGET_BYTES,
  RESPONSE_BODY_LIMIT_BYTES,
} from './pageBudget.js';
