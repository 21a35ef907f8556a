import { ENVIRONMENTS } from '@parley/events';
import { z } from 'zod';
import { agentGuardrailsSchema } from './guardrailSchema.js';
import { AGENT_PROVIDERS } from './providerNames.js';
import { agentToolDefinitionSchema, secretNameSchema, secretNamesOf } from './toolSchema.js';

export { type AgentGuardrails, agentGuardrailsSchema, PII_KINDS, type PiiKind } from './guardrailSchema.js';
export { AGENT_PROVIDERS, type AgentProvider, DEFAULT_MODELS } from './providerNames.js';
export {
  type AgentToolDefinition,
  agentToolDefinitionSchema,
  type HttpToolAuth,
  type HttpToolImplementation,
  secretNameSchema,
  secretNamesOf,
  type ToolImplementation,
  type ToolSuspension,
} from './toolSchema.js';

/** Agent names go in URLs and CLI arguments: a letter or digit, then letters, digits, `_.-`. */
export const agentNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
  message:
    'an agent name is 1-64 characters: letters, digits, `_`, `.`, `-`, starting with a letter or digit',
});

/**
 * The system tools Parley offers the model (docs/agents.md "System tools"), each on unless switched
 * off: `handoff` (to another agent: of the project, or remote over A2A), `escalate` (to a human),
 * `end_conversation` (with an outcome), `present_actions` (an ACTION_SET), `attach_media`.
 */
export const agentSystemToolsSchema = z.strictObject({
  handoff: z.boolean().default(true),
  escalate: z.boolean().default(true),
  endConversation: z.boolean().default(true),
  presentActions: z.boolean().default(true),
  attachMedia: z.boolean().default(true),
});
export type AgentSystemTools = z.infer<typeof agentSystemToolsSchema>;

/** An agent outside Parley reached over A2A (JSON-RPC `message/send`), a handoff target. */
export const remoteAgentSchema = z.strictObject({
  name: agentNameSchema,
  description: z.string().max(1000).default(''),
  /** The A2A endpoint (JSON-RPC over HTTP POST). */
  url: z.url({ protocol: /^https?$/ }).max(2048),
  /** A secret sent as `Authorization: Bearer`. */
  bearerSecret: secretNameSchema.optional(),
});
export type RemoteAgent = z.infer<typeof remoteAgentSchema>;

/**
 * Handoffs: the agents this one may hand off to (default: every other agent of the project) and
 * remote agents reached over A2A.
 */
export const agentHandoffsSchema = z.strictObject({
  targets: z.array(agentNameSchema).max(64).optional(),
  remote: z
    .array(remoteAgentSchema)
    .max(16)
    .refine((r) => new Set(r.map((a) => a.name)).size === r.length, {
      message: 'remote agent names must be unique',
    })
    .default([]),
});
export type AgentHandoffs = z.infer<typeof agentHandoffsSchema>;

/** What the model may read of the session besides the conversation (`context_access.read`, spec 001 §6). */
export const CONTEXT_KEYS = [
  'session.id',
  'session.channel',
  'session.environment',
  'session.channelUserId',
  'session.messageMetadata',
  'message_metadata',
] as const;
export const agentContextAccessSchema = z.strictObject({
  read: z.array(z.enum(CONTEXT_KEYS)).max(CONTEXT_KEYS.length).default([]),
});
export type AgentContextAccess = z.infer<typeof agentContextAccessSchema>;

/** Model calls in one turn: the first, then one after each round of tool results (a handoff included). */
export const DEFAULT_MAX_ITERATIONS = 5;

/** The system tools' names (tools/systemTools.ts): an agent's own tools cannot take them. */
const RESERVED_TOOL_NAMES = ['handoff', 'escalate', 'end_conversation', 'present_actions', 'attach_media'];

const tools = z
  .array(agentToolDefinitionSchema)
  .max(64)
  .refine((list) => new Set(list.map((t) => t.name)).size === list.length, {
    message: 'tool names must be unique',
  })
  .refine((list) => list.every((t) => !RESERVED_TOOL_NAMES.includes(t.name)), {
    message: `tool names ${RESERVED_TOOL_NAMES.join(', ')} are the system tools'`,
  });

/** Secret values are write-only: given on create/update, never returned (only their names). */
const secrets = z.record(secretNameSchema, z.string().min(1).max(8192));

const agentFields = {
  description: z.string().max(1000).nullable(),
  provider: z.enum(AGENT_PROVIDERS),
  model: z.string().min(1).max(200),
  systemPrompt: z.string().max(100_000),
  tools,
  guardrails: agentGuardrailsSchema,
  systemTools: agentSystemToolsSchema,
  handoffs: agentHandoffsSchema,
  contextAccess: agentContextAccessSchema,
  maxIterations: z.int().min(1).max(25),
  environment: z.enum(ENVIRONMENTS).nullable(),
  deploymentId: z.string().min(1).max(256).nullable(),
};

/** Every secret a definition refers to must be given (now or before). */
function missingSecrets(
  definition: { tools?: z.infer<typeof tools>; handoffs?: AgentHandoffs },
  names: ReadonlySet<string>,
): string[] {
  const wanted = new Set<string>();
  for (const tool of definition.tools ?? []) for (const name of secretNamesOf(tool)) wanted.add(name);
  for (const remote of definition.handoffs?.remote ?? [])
    if (remote.bearerSecret) wanted.add(remote.bearerSecret);
  return [...wanted].filter((name) => !names.has(name)).sort();
}

/** Body of `POST /api/v1/projects/{projectId}/agents`. */
export const agentInputSchema = z
  .strictObject({
    name: agentNameSchema,
    description: agentFields.description.optional(),
    provider: agentFields.provider.default('scripted'),
    model: agentFields.model.optional(),
    systemPrompt: agentFields.systemPrompt.default(''),
    tools: agentFields.tools.default([]),
    guardrails: agentFields.guardrails.default({}),
    systemTools: agentFields.systemTools.optional(),
    handoffs: agentFields.handoffs.optional(),
    contextAccess: agentFields.contextAccess.optional(),
    maxIterations: agentFields.maxIterations.optional(),
    secrets: secrets.optional(),
    environment: agentFields.environment.optional(),
    deploymentId: agentFields.deploymentId.optional(),
  })
  .superRefine((input, ctx) => {
    const missing = missingSecrets(input, new Set(Object.keys(input.secrets ?? {})));
    if (missing.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['secrets'],
        message: `secrets not given: ${missing.join(', ')}`,
      });
    }
  });
export type AgentInput = z.input<typeof agentInputSchema>;

/**
 * Body of `PATCH .../agents/{name}`: the fields to replace; `null` clears a nullable one. `secrets`
 * merges: a value sets that secret, `null` deletes it (references are checked against the result).
 */
export const agentPatchSchema = z
  .strictObject({
    description: agentFields.description,
    provider: agentFields.provider,
    model: agentFields.model,
    systemPrompt: agentFields.systemPrompt,
    tools: agentFields.tools,
    guardrails: agentFields.guardrails,
    systemTools: agentFields.systemTools,
    handoffs: agentFields.handoffs,
    contextAccess: agentFields.contextAccess,
    maxIterations: agentFields.maxIterations,
    secrets: z.record(secretNameSchema, z.string().min(1).max(8192).nullable()),
    environment: agentFields.environment,
    deploymentId: agentFields.deploymentId,
  })
  .partial();
export type AgentPatch = z.input<typeof agentPatchSchema>;

export { missingSecrets };
