import { ENVIRONMENTS } from '@parley/events';
import { z } from 'zod';

export const AGENT_PROVIDERS = ['scripted', 'openai-compatible', 'anthropic'] as const;
export type AgentProvider = (typeof AGENT_PROVIDERS)[number];

/** Agent names go in URLs and CLI arguments: a letter or digit, then letters, digits, `_.-`. */
export const agentNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
  message:
    'an agent name is 1-64 characters: letters, digits, `_`, `.`, `-`, starting with a letter or digit',
});

const jsonObject = z.record(z.string(), z.unknown());

/** A tool the model may call (the OpenAI function-tool shape, flattened). */
export const agentToolDefinitionSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'a tool name is 1-64 of A-Z a-z 0-9 _ -' }),
  description: z.string().max(1024).default(''),
  /** JSON Schema of the arguments. */
  parameters: jsonObject.default({ type: 'object', properties: {} }),
});
export type AgentToolDefinition = z.infer<typeof agentToolDefinitionSchema>;

/** Checks the turn engine applies itself, around the model (trace `guardrail_eval` events). */
export const agentGuardrailsSchema = z.strictObject({
  /** Case-insensitive terms that block the user's message (input guardrail `blocked_terms`). */
  blockedTerms: z.array(z.string().min(1).max(200)).max(100).optional(),
  /** Replies longer than this are cut (output guardrail `max_reply_chars`). */
  maxReplyChars: z.int().min(1).max(100_000).optional(),
  /** What the agent answers when a guardrail blocks; a fixed default otherwise. */
  blockedReply: z.string().min(1).max(1000).optional(),
});
export type AgentGuardrails = z.infer<typeof agentGuardrailsSchema>;

const agentFields = {
  description: z.string().max(1000).nullable(),
  provider: z.enum(AGENT_PROVIDERS),
  model: z.string().min(1).max(200),
  systemPrompt: z.string().max(100_000),
  tools: z
    .array(agentToolDefinitionSchema)
    .max(64)
    .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, {
      message: 'tool names must be unique',
    }),
  guardrails: agentGuardrailsSchema,
  environment: z.enum(ENVIRONMENTS).nullable(),
  deploymentId: z.string().min(1).max(256).nullable(),
};

/** Body of `POST /api/v1/projects/{projectId}/agents`. */
export const agentInputSchema = z.strictObject({
  name: agentNameSchema,
  description: agentFields.description.optional(),
  provider: agentFields.provider.default('scripted'),
  model: agentFields.model.optional(),
  systemPrompt: agentFields.systemPrompt.default(''),
  tools: agentFields.tools.default([]),
  guardrails: agentFields.guardrails.default({}),
  environment: agentFields.environment.optional(),
  deploymentId: agentFields.deploymentId.optional(),
});
export type AgentInput = z.input<typeof agentInputSchema>;

/** Body of `PATCH .../agents/{name}`: the fields to replace; `null` clears a nullable one. */
export const agentPatchSchema = z
  .strictObject({
    description: agentFields.description,
    provider: agentFields.provider,
    model: agentFields.model,
    systemPrompt: agentFields.systemPrompt,
    tools: agentFields.tools,
    guardrails: agentFields.guardrails,
    environment: agentFields.environment,
    deploymentId: agentFields.deploymentId,
  })
  .partial();
export type AgentPatch = z.input<typeof agentPatchSchema>;

/** The model a provider's agents use when created without one. */
export const DEFAULT_MODELS: Record<AgentProvider, string> = {
  scripted: 'scripted-1',
  'openai-compatible': 'gpt-4o-mini',
  anthropic: 'claude-sonnet-4-20250514',
};
