import type { ActionSet, ContainmentType, Environment, ReplyMedia, SessionState } from '@parley/events';
import type { EventStore } from '@parley/eventstore';
import type { Logger, Pool } from '@parley/platform';
import type { AgentStore } from '../agents/store.js';
import type { PriceCards } from '../pricing/index.js';
import type { ProviderRegistry } from '../providers/types.js';
import type { SuspensionStore } from '../suspensions/suspensionStore.js';
import type { ToolFetch } from '../tools/httpTool.js';
import type { RealtimeConversation, RealtimeRequest } from './realtime/realtimeTypes.js';

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
   * messageMetadataSchema): recorded on MessageReceived and readable in this turn only, as
   * `{{session.messageMetadata.…}}` / `{{message_metadata.…}}` in the system prompt and in http tool
   * templates, and through `contextAccess.read` (`session.messageMetadata`, `message_metadata`).
   */
  messageMetadata?: Record<string, unknown>;
  /**
   * The conversation before this message as another agent forwarded it on a remote handoff (A2A
   * `message.metadata.history`, `[{ role: 'user' | 'agent', text }]`): given to the model as the
   * prior turns of this session's conversation (withForwardedHistory), not recorded as messages.
   */
  forwardedHistory?: Array<{ role: 'user' | 'agent'; text: string }>;
  /**
   * Where a reply that comes later goes (a suspended tool's, delivered once its callback came): the
   * channel layer's own description (JSON), given back with the resumed turn. Absent: nowhere but
   * the session's transcript.
   */
  origin?: Record<string, unknown>;
}

export type TurnStreamEvent =
  | { type: 'text_delta'; messageId: string; delta: string }
  /** One per LLM call of the turn, as each call ends (spec 001 §4.3 `usage`). */
  | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface TurnUsage {
  inputTokens: number;
  cachedTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface TurnReply {
  messageId: string;
  text: string;
  actionSet?: ActionSet;
  media?: ReplyMedia[];
  /** The agent's fallback reply (the turn ran out of model calls), as on AgentReplied. */
  usedFallback: boolean;
  /** The model wrote the reply (not the fallback, not a guardrail's blocked reply), as on AgentReplied. */
  isLlmGenerated: boolean;
}

/** A turn whose tool suspended it: the reply comes once the tool's callback does (or its timeout). */
export interface SuspendedTurn {
  suspensionId: string;
  toolName: string;
  expiresAt: string;
}

export interface TurnResult {
  sessionId: string;
  /** True when this turn started the session. */
  created: boolean;
  userMessageId: string;
  /** The agent that answered (after any handoff). */
  agentName: string;
  /**
   * The reply. For a suspended turn (`suspended` set) nothing is recorded yet: `messageId` is the id
   * the reply will have, and `text` the tool's pending reply for a caller that waits on this request.
   */
  reply: TurnReply;
  /** Set when a tool suspended the turn; the reply is delivered later (docs/agents.md "Suspended tools"). */
  suspended: SuspendedTurn | null;
  /** Set when the agent handed the conversation off in this turn. */
  handedOff: null | { from: string; to: string; remote: boolean };
  /** LLM calls made in the turn (guardrail checks included; 0 when an input guardrail blocked the message). */
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

/** A suspension's callback (or its timeout), to resume the turn it suspended. */
export interface ResumeRequest {
  suspensionId: string;
  /** `completed`: the external system's result; `timed_out`: no callback came in time. */
  outcome: 'completed' | 'timed_out';
  /** The callback's JSON body (completed only). */
  result?: unknown;
}

export interface ResumeResult {
  sessionId: string;
  projectId: string;
  tenantId: string;
  /** The TurnRequest.origin of the suspended turn. */
  origin: Record<string, unknown> | null;
  result: TurnResult;
}

export interface Runtime {
  runTurn(req: TurnRequest, options?: RunTurnOptions): Promise<TurnResult>;
  /**
   * A realtime (native audio) conversation with the project's agent: its prompt and tools for the
   * realtime session, its tools run and its turns recorded here (engine/realtime).
   */
  openRealtime(req: RealtimeRequest): Promise<RealtimeConversation>;
  /**
   * Resumes a suspended turn (its suspension already claimed by the callback route or the timeout
   * sweep). SuspensionNotRecordedError while the turn's ToolCallSuspended is not in the log yet
   * (the callback came back before the turn was recorded): retry. Null: nothing to deliver (the
   * session ended meanwhile, or a timeout of a turn that was never recorded).
   */
  resume(req: ResumeRequest): Promise<ResumeResult | null>;
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
  /** The agent store (default: createAgentStore(pool, secrets)). */
  agents?: AgentStore;
  /**
   * The credentials keyring (CHANNEL_CREDENTIALS_KEY): agents' secrets and suspensions' signing
   * secrets. Absent: agents without secrets only, and no suspending tools.
   */
  secrets?: import('../agents/secretsCipher.js').SecretsCipher;
  /** The fetch of http tools and remote (A2A) agents: the SSRF-guarded one in production. Absent: they fail. */
  toolFetch?: ToolFetch;
  /** Where external systems reach Parley (suspension callback URLs). Absent: no suspending tools. */
  publicBaseUrl?: string;
  /** How long a suspension waits for its callback when its tool says nothing (default 86 400 s). */
  suspensionTimeoutSeconds?: number;
  /** The suspension store (default: createSuspensionStore(pool, secrets) when `secrets` is given). */
  suspensions?: SuspensionStore;
}
