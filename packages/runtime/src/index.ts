// Agents (src/agents): their configuration and store.
export * from './agents/index.js';
export {
  MESSAGE_METADATA_LIMITS,
  type MessageMetadata,
  messageMetadataSchema,
  renderPrompt,
} from './engine/messageMetadata.js';
export {
  REALTIME_CHANNEL,
  RealtimeUnavailableError,
} from './engine/realtime/realtimeConversation.js';
export type {
  RealtimeAgentView,
  RealtimeConversation,
  RealtimeRequest,
  RealtimeResponseFacts,
  RealtimeToolResult,
  RealtimeTurn,
} from './engine/realtime/realtimeTypes.js';
export {
  createRuntime,
  DEFAULT_BLOCKED_REPLY,
  DEFAULT_TIMEOUT_REPLY,
  FALLBACK_REPLY,
  MAX_LLM_CALLS_PER_TURN,
  SuspensionNotRecordedError,
} from './engine/runtime.js';
export { loadSession } from './engine/session/loadSession.js';
export { evolveSession, HISTORY_LIMIT, type SessionView } from './engine/session/sessionView.js';
export { RemoteAgentFailedError } from './engine/turn/remoteAgent.js';
export type {
  ResumeRequest,
  ResumeResult,
  RunTurnOptions,
  Runtime,
  RuntimeDeps,
  SuspendedTurn,
  TurnReply,
  TurnRequest,
  TurnResult,
  TurnStreamEvent,
  TurnUsage,
} from './engine/types.js';
export {
  AgentExistsError,
  AgentNotFoundError,
  ProjectNotFoundError,
  ProviderFailedError,
  SessionEndedError,
  SessionNotFoundError,
} from './errors.js';
export { detectPii, luhnValid, type PiiFinding, redactPii } from './guardrails/pii.js';
export { runtimeMigrations } from './migrations.js';
// Providers and price cards (src/providers, src/pricing).
export * from './pricing/index.js';
export * from './providers/index.js';
export {
  type ClaimRefusal,
  createSuspensionStore,
  type SuspensionRecord,
  type SuspensionStore,
} from './suspensions/suspensionStore.js';
export { BUILTIN_TOOLS, runBuiltinTool } from './tools/builtinTools.js';
export type { ToolFetch } from './tools/httpTool.js';
export { SYSTEM_TOOL_NAMES } from './tools/systemTools.js';
export { SUSPENSION_HEADERS, suspensionCallbackUrl } from './tools/toolRunner.js';
