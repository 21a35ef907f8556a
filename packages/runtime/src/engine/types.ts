import type { ActionSet, ContainmentType, Environment, SessionState } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { PriceCards } from '../pricing/index.js';
import type { ProviderRegistry } from '../providers/types.js';

/** One user message for the agent of a project (spec 001 §4.3 chat/send and chat/stream). */
export interface TurnRequest {
  projectId: string;
  /** The caller's tenant; the project must belong to it (else ProjectNotFoundError). */
  tenantId: string;
  /** Continue this session; absent: a new session is started. */
  sessionId?: string;
  message: string;
  /**
   * New session: the agent to start with (absent: the project's oldest agent, or the built-in
   * scripted `default` agent when the project has none). Existing session: ignored, the session's
   * current agent (the last handoff's target) answers.
   */
  agentName?: string;
  /** Channel of a new session; default `api`. */
  channel?: string;
  channelType?: string;
  /** Environment of a new session; default: the agent's environment, else `dev`. */
  environment?: Environment;
  channelUserId?: string;
  /** Stream the reply's text deltas through options.onEvent. */
  stream?: boolean;
  /** Interactive callback data (button click, select) answering an earlier ACTION_SET. */
  actionEvent?: Record<string, unknown>;
  /** The message id on the external platform (channel adapters); recorded on MessageReceived. */
  externalMessageId?: string;
  /** Channel-specific metadata of the inbound message (never credentials); recorded on MessageReceived. */
  channelMetadata?: Record<string, unknown>;
  /** The message's original time on the channel, ISO 8601; recorded on MessageReceived as `sentAt`. */
  sentAt?: string;
  /**
   * Turn-scoped message metadata (A2A `message.metadata.messageMetadata`, already validated with
   * messageMetadataSchema): recorded on MessageReceived and readable in this turn's system prompt
   * as `{{session.messageMetadata.…}}` / `{{message_metadata.…}}`; not kept for later turns.
   */
  messageMetadata?: Record<string, unknown>;
}

export type TurnStreamEvent =
  | { type: 'text_delta'; messageId: string; delta: string }
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface TurnUsage {
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface TurnResult {
  sessionId: string;
  /** True when this turn started the session. */
  created: boolean;
  userMessageId: string;
  /** The agent that answered (after any handoff). */
  agentName: string;
  reply: {
    messageId: string;
    text: string;
    actionSet?: ActionSet;
    /** The agent's fallback reply (the turn ran out of model calls), as on AgentReplied. */
    usedFallback: boolean;
    /** The model wrote the reply (not the fallback, not a guardrail's blocked reply), as on AgentReplied. */
    isLlmGenerated: boolean;
  };
  /** LLM calls made in the turn (0 when an input guardrail blocked the message). */
  llmCalls: number;
  /** Summed over every LLM call of the turn. */
  usage: TurnUsage;
  /** Wall time of the turn, from receiving the message to the reply being recorded. */
  latencyMs: number;
  /** Set when the agent ended the conversation in this turn. */
  ended: null | { status: SessionState; containmentType?: ContainmentType };
}

export interface RunTurnOptions {
  /** Aborts the turn (e.g. the SSE client went away): the provider call is cancelled. */
  signal?: AbortSignal;
  onEvent?: (event: TurnStreamEvent) => void;
}

export interface Runtime {
  runTurn(req: TurnRequest, options?: RunTurnOptions): Promise<TurnResult>;
  /**
   * Ends a session (status `ended`, reason default `api`). Ending an ended session is a no-op
   * that answers `{ ended: false, status: <its end state> }`.
   */
  endSession(
    projectId: string,
    sessionId: string,
    reason?: string,
  ): Promise<{ ended: boolean; status: string }>;
}

export interface RuntimeDeps {
  pool: Pool;
  store: EventStore;
  providers: ProviderRegistry;
  priceCards: PriceCards;
  now?: () => Date;
  logger: Logger;
}
