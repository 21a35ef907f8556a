/**
 * @parley/runtime: agents (configuration, packages/runtime/migrations) and the turn engine that
 * runs a conversation turn and records it in the session's stream.
 */
export {
  AGENT_PROVIDERS,
  type Agent,
  type AgentGuardrails,
  type AgentInput,
  type AgentPatch,
  type AgentProvider,
  type AgentStore,
  type AgentToolDefinition,
  agentGuardrailsSchema,
  agentInputSchema,
  agentNameSchema,
  agentPatchSchema,
  agentToolDefinitionSchema,
  createAgentStore,
  DEFAULT_AGENT,
  DEFAULT_MODELS,
} from './agents/index.js';
export {
  MESSAGE_METADATA_LIMITS,
  type MessageMetadata,
  messageMetadataSchema,
  renderPrompt,
} from './engine/messageMetadata.js';
export {
  createRuntime,
  DEFAULT_BLOCKED_REPLY,
  FALLBACK_REPLY,
  MAX_LLM_CALLS_PER_TURN,
} from './engine/runtime.js';
export { HISTORY_LIMIT } from './engine/session.js';
export { BUILTIN_TOOLS, runBuiltinTool } from './engine/tools.js';
export type {
  RunTurnOptions,
  Runtime,
  RuntimeDeps,
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
export { runtimeMigrations } from './migrations.js';
// Providers and price cards (src/providers, src/pricing).
export * from './pricing/index.js';
export * from './providers/index.js';
