export {
  AGENT_PROVIDERS,
  type AgentGuardrails,
  type AgentInput,
  type AgentPatch,
  type AgentProvider,
  type AgentToolDefinition,
  agentGuardrailsSchema,
  agentInputSchema,
  agentNameSchema,
  agentPatchSchema,
  agentToolDefinitionSchema,
  DEFAULT_MODELS,
} from './schema.js';
export { type Agent, type AgentStore, createAgentStore, DEFAULT_AGENT, newAgentId } from './store.js';
