import type { Freshness } from '../api.js';

/** One call record of GET …/llm-ledger (docs/api.md "llm-ledger Response 200"). */
export interface Generation {
  id: string;
  model: string;
  provider: string;
  agentName: string;
  environment: string;
  status: 'success' | 'failed' | string;
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
  latencyMs: number;
  timeToFirstTokenMs: number;
  streamingUsed: boolean;
  cost: number;
  timestamp: string;
  sessionId: string;
  traceId: string;
  callId: string;
  eventId: string;
  source: string;
  sourceSubtype: string;
  sourceLabel: string;
  sourceSubtypeLabel: string;
  sourceId: string;
  channel: string;
  channelType: string;
  statusCode: number;
  payloadState: 'available' | 'not_stored' | 'too_large' | string;
  payload?: { prompt: unknown; response: unknown };
}

export interface LedgerPage {
  success: true;
  total: number;
  limit: number;
  offset: number;
  dataMode: 'summary' | 'full';
  hasMore: boolean;
  generations: Generation[];
  freshness?: Freshness;
}

export type Bucket = 'minute' | 'hour' | 'day';
export type GroupBy = 'model' | 'provider' | 'source';

export interface StatsPoint {
  t: string;
  calls: number;
  failed: number;
  cost: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export interface StatsSeries {
  key: string;
  points: StatsPoint[];
}

export interface StatsTotal {
  key: string;
  calls: number;
  failed: number;
  cost: number;
  totalTokens: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

/** GET …/llm-ledger/stats (issue 10 contract D). */
export interface LedgerStats {
  success: true;
  bucket: Bucket;
  groupBy: GroupBy;
  fromDate: string;
  toDate: string;
  series: StatsSeries[];
  totals: StatsTotal[];
  freshness?: Freshness;
}
