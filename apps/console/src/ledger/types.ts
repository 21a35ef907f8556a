import type { ListLlmLedgerResponse, LlmLedgerStatsResponse } from '../apiTypes.generated.js';

/** GET …/llm-ledger and …/llm-ledger/stats (docs/api.md): generated from the API's /openapi.json. */
export type LedgerPage = ListLlmLedgerResponse;
/** One call record of GET …/llm-ledger (docs/api.md "llm-ledger Response 200"). */
export type Generation = LedgerPage['generations'][number];

export type LedgerStats = LlmLedgerStatsResponse;
export type Bucket = LedgerStats['bucket'];
export type GroupBy = LedgerStats['groupBy'];
export type StatsSeries = LedgerStats['series'][number];
export type StatsPoint = StatsSeries['points'][number];
export type StatsTotal = LedgerStats['totals'][number];
