/** The API shapes the session screens read (docs/api.md, docs/traces.md). */

import type { Freshness } from '../api.js';

export interface SessionSummary {
  id: string;
  channel: string;
  environment: string;
  status: string;
  containmentType: string;
  createdAt: string;
  lastActivityAt: string;
  endedAt: string | null;
  messageCount: { user: number; agent: number; total: number };
  traceEventCount: { llm_call: number; decision: number; tool_call: number; error: number; total: number };
  tokenCount: {
    inputTokens: number;
    cachedTokens: number;
    completionTokens: number;
    reasoningTokens: number;
    outputTokens: number;
    totalTokens: number;
  };
  traceDimensions: Record<string, string>;
  estimatedCost: number;
  durationMs: number;
  idleDurationMs: number;
  isTest: boolean | null;
}

export interface SessionsPage {
  success: true;
  total: number;
  offset: number;
  limit: number;
  hasMore: boolean;
  sessions: SessionSummary[];
  freshness?: Freshness;
}

export interface Message {
  messageId: string;
  role: 'user' | 'agent';
  text: string;
  at: string;
  inReplyTo: string | null;
  agentName: string | null;
  actionSet: unknown;
  actionEvent: unknown;
  usedFallback: boolean | null;
}

export interface MessagesPage {
  success: true;
  sessionId: string;
  messages: Message[];
  pagination: { total: number; limit: number; offset: number };
  hasMore: boolean;
  freshness?: Freshness;
}

export interface LlmCallInfo {
  callId: string;
  model: string | null;
  provider: string | null;
  status: string;
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
  latencyMs: number | null;
  timeToFirstTokenMs: number | null;
  streamingUsed: boolean | null;
  cost: number | null;
}

export interface TraceEvent {
  eventId: string;
  sessionId: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  eventType: string;
  name: string | null;
  status: string | null;
  decisionKind: string | null;
  llmCallId: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  attributes: Record<string, unknown>;
  childCount: number;
  llmCall: LlmCallInfo | null;
}

export interface TracesPage {
  success: true;
  sessionId: string;
  traces: TraceEvent[];
  pagination: { total: number; limit: number; offset: number };
  hasMore: boolean;
}

export interface SessionMetrics {
  sessionId: string;
  eventCount: number;
  eventCountByType: Record<string, number>;
  totalLatencyMs: number;
  wallClockMs: number;
  turnCount: number;
  turns: Array<{
    spanId: string;
    eventType: string;
    name: string | null;
    startedAt: string;
    latencyMs: number;
    eventCount: number;
    llmCallCount: number;
    toolCallCount: number;
    errorCount: number;
  }>;
  llmCallCount: number;
  tokenUsage: Record<string, number>;
  totalCost: number;
  toolCallCount: number;
  toolSuccessCount: number;
  toolSuccessRate: number | null;
  guardrailEvaluationCount: number;
  guardrailBlockCount: number;
  guardrailBlockRate: number | null;
  errorCount: number;
}

export interface SessionAnalysis {
  sessionId: string;
  slowSpans: Array<{
    eventId?: string;
    spanId: string;
    eventType: string;
    name: string | null;
    durationMs: number;
    reason?: string;
    thresholdMs?: number;
  }>;
  errorPatterns: Array<{
    eventType: string;
    name: string | null;
    code: string | null;
    count: number;
    firstAt: string;
    lastAt: string;
    spanIds: string[];
  }>;
  decisionAnomalies: Array<{
    kind: string;
    message?: string;
    spanIds?: string[];
    details?: Record<string, unknown>;
  }>;
  suggestions: Array<{ code: string; message: string; evidence?: unknown }>;
  rules?: Record<string, unknown>;
}

/** GET …/llm-ledger as the session screens read it: the ledger screen's shapes. */
export type { Generation as LedgerCall, LedgerPage } from '../ledger/types.js';

export interface RecordingFile {
  recordingId: string;
  objectIndex: number;
  fileName: string | null;
  channel: string | null;
  recordingType: string | null;
  bytes: number | null;
  recordingStartTime: string | null;
  recordingEndTime: string | null;
  availability: string;
  url: string | null;
  urlKind: 'signed' | 'proxied' | 'external' | null;
  expiresIn: number | null;
  unavailableReason: string | null;
  retryable: boolean;
}

export interface Recording {
  recordingId: string;
  callId: string | null;
  availability: string;
  unavailableReason: string | null;
  retryable: boolean;
  durationSeconds: number | null;
  immutable: boolean;
  createdAt: string | null;
  retentionExpiresAt: string | null;
  files: RecordingFile[];
}

export interface RecordingsAnswer {
  success: true;
  data: {
    sessionId: string;
    projectId: string;
    status: 'success' | 'partial' | 'call_in_progress' | 'media_in_progress' | 'media_unavailable';
    unavailableReason: string | null;
    retryable: boolean;
    recordings: Recording[];
  };
}
