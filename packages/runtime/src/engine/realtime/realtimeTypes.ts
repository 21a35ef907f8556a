import type { LlmMessage, ToolCall, ToolDefinition } from '../../providers/types.js';

/**
 * A realtime (native audio) conversation: the model hears the caller and speaks itself, so the
 * runtime does not call an LLM provider; it gives the session the agent's prompt and tools, runs
 * the tools the model calls (the same tool runner as text turns), and records each turn: the
 * caller's transcript, the realtime responses (LlmCallRecorded, source subtype
 * `realtime_response`), the tool spans and the agent's transcript. docs/voice.md "Realtime mode".
 */
export interface RealtimeRequest {
  projectId: string;
  tenantId: string;
  /** Continue this session (its agent answers); absent: a new session, started with the first turn. */
  sessionId?: string;
  /** New session: the agent (absent: the project's oldest). */
  agentName?: string;
  /** Channel of a new session (default `voice_realtime`). */
  channel?: string;
  channelType?: string;
  /** Recorded on every MessageReceived of the call (e.g. the call's ids). */
  channelMetadata?: Record<string, unknown>;
}

/** What the realtime session is configured with. */
export interface RealtimeAgentView {
  name: string;
  /** The agent's LLM provider and model as configured (the realtime provider decides whether it serves the model). */
  provider: string;
  model: string;
  /** The system prompt, rendered as for a text turn. */
  instructions: string;
  /** The agent's tools the realtime model may call (no handoff, no suspending tools). */
  tools: ToolDefinition[];
  /** An existing session's conversation (user and assistant text) for the model's context. */
  history: LlmMessage[];
}

/** One realtime response (the provider's response.done) as the ledger records it. */
export interface RealtimeResponseFacts {
  responseId: string;
  /** The realtime provider (e.g. `openai`) and the model the session runs. */
  provider: string;
  model: string;
  status: 'completed' | 'cancelled' | 'failed' | 'incomplete';
  usage: { inputTokens: number; cachedTokens: number; outputTokens: number };
  startedAt: Date;
  latencyMs: number;
  /** From response.created to its first audio delta; null without audio. */
  timeToFirstAudioMs: number | null;
  /** What the model said (its audio transcript), possibly cut by a barge-in. */
  transcript: string;
  /** Names of the functions the response called. */
  functionCalls: string[];
  error?: { code: string; message: string };
}

export interface RealtimeToolResult {
  /** The function_call_output sent back to the model. */
  output: string;
  status: 'ok' | 'error';
  /** The tool ended the conversation (end_conversation, escalate): the call ends after this turn. */
  ending: boolean;
}

/** One caller utterance and everything the agent did about it. */
export interface RealtimeTurn {
  runTool(call: ToolCall): Promise<RealtimeToolResult>;
  recordResponse(facts: RealtimeResponseFacts): void;
  /**
   * Records the turn (two appends, as a text turn: the caller's message, then its trace, LLM calls,
   * reply and any end). Turns are recorded in the order they began, one after another.
   */
  finish(input: { userText: string; agentText: string; interrupted: boolean }): Promise<{
    sessionId: string;
    ended: boolean;
  }>;
}

export interface RealtimeConversation {
  /** The session the turns are recorded in (created by the first turn when new). */
  readonly sessionId: string;
  readonly agent: RealtimeAgentView;
  beginTurn(): RealtimeTurn;
}
