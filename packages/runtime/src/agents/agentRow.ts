import { randomBytes } from 'node:crypto';
import type { Environment } from '@parley/events';
import {
  type AgentContextAccess,
  type AgentGuardrails,
  type AgentHandoffs,
  type AgentProvider,
  type AgentToolDefinition,
  agentContextAccessSchema,
  agentHandoffsSchema,
  agentSystemToolsSchema,
  DEFAULT_MAX_ITERATIONS,
} from './schema.js';
import type { Agent } from './store.js';

export interface AgentRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  provider: AgentProvider;
  model: string;
  system_prompt: string;
  tools: AgentToolDefinition[];
  guardrails: AgentGuardrails;
  system_tools: Record<string, unknown>;
  handoffs: Record<string, unknown>;
  context_access: Record<string, unknown>;
  max_iterations: number | null;
  secret_names: string[];
  environment: Environment | null;
  deployment_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export const COLUMNS = `id, project_id, name, description, provider, model, system_prompt, tools, guardrails,
  system_tools, handoffs, context_access, max_iterations, secret_names, environment, deployment_id,
  created_at, updated_at`;

/** Stored configuration with its defaults filled (rows written before a field existed hold `{}`). */
export const toAgent = (r: AgentRow): Agent => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  description: r.description,
  provider: r.provider,
  model: r.model,
  systemPrompt: r.system_prompt,
  tools: r.tools,
  guardrails: r.guardrails,
  systemTools: agentSystemToolsSchema.parse(r.system_tools),
  handoffs: agentHandoffsSchema.parse(r.handoffs) as AgentHandoffs,
  contextAccess: agentContextAccessSchema.parse(r.context_access) as AgentContextAccess,
  maxIterations: r.max_iterations ?? DEFAULT_MAX_ITERATIONS,
  secretNames: r.secret_names,
  environment: r.environment,
  deploymentId: r.deployment_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `agt_` and 16 base62 characters, like the auth ids. */
export function newAgentId(): string {
  const bytes = randomBytes(16);
  let out = 'agt_';
  // 62 * 4 = 248 < 256: rejecting bytes >= 248 keeps every character equally likely.
  for (let i = 0; out.length < 20; i++) {
    const byte = i < bytes.length ? bytes[i]! : randomBytes(1)[0]!;
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * The agent a project without agents talks to: scripted (offline, deterministic), offering the
 * built-in demo tools and the system tools. It is never stored; creating an agent named `default`
 * replaces it.
 */
export const DEFAULT_AGENT: Omit<Agent, 'projectId' | 'createdAt' | 'updatedAt'> = Object.freeze({
  id: 'agt_builtin_default',
  name: 'default',
  description: 'Built-in scripted agent (the project has no agents)',
  provider: 'scripted',
  model: 'scripted-1',
  systemPrompt: 'You are a helpful assistant.',
  tools: [
    {
      name: 'weather',
      description: 'Weather forecast for a city (demo data)',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    {
      name: 'lookup_order',
      description: 'Status of an order by id (demo data)',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  ],
  guardrails: {},
  systemTools: agentSystemToolsSchema.parse({}),
  handoffs: { remote: [] },
  contextAccess: { read: [] },
  maxIterations: DEFAULT_MAX_ITERATIONS,
  secretNames: [],
  environment: null,
  deploymentId: null,
});

const EPOCH = new Date(0);
export const builtinDefault = (projectId: string): Agent => ({
  ...DEFAULT_AGENT,
  tools: DEFAULT_AGENT.tools.map((t) => ({ ...t })),
  projectId,
  createdAt: EPOCH,
  updatedAt: EPOCH,
});
