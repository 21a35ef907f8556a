/**
 * The API shapes the session screens read (docs/api.md, docs/traces.md): generated from the API's
 * /openapi.json (../apiTypes.generated.ts), never written by hand.
 */

import type {
  GetSessionAnalysisResponse,
  GetSessionMetricsResponse,
  GetSessionRecordingsResponse,
  ListSessionMessagesResponse,
  ListSessionSummariesResponse,
  ListSessionTracesResponse,
} from '../apiTypes.generated.js';

export type SessionsPage = ListSessionSummariesResponse;
export type SessionSummary = SessionsPage['sessions'][number];
export type MessagesPage = ListSessionMessagesResponse;
export type Message = MessagesPage['messages'][number];
export type TracesPage = ListSessionTracesResponse;
export type TraceEvent = TracesPage['traces'][number];
export type LlmCallInfo = NonNullable<TraceEvent['llmCall']>;
export type SessionMetrics = GetSessionMetricsResponse['data'];
export type SessionAnalysis = GetSessionAnalysisResponse['data'];
/** One voice call of a session, as GET …/metrics `voiceCalls` gives it (docs/traces.md "Voice calls"). */
export type VoiceCall = NonNullable<SessionMetrics['voiceCalls']>[number];

/** GET …/llm-ledger as the session screens read it: the ledger screen's shapes. */
export type { Generation as LedgerCall, LedgerPage } from '../ledger/types.js';

export type RecordingsAnswer = GetSessionRecordingsResponse;
export type Recording = RecordingsAnswer['data']['recordings'][number];
export type RecordingFile = Recording['files'][number];
