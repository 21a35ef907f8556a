import { z } from 'zod';

/**
 * An agent's tools (docs/agents.md "Tools"): what the model sees (name, description, JSON Schema
 * parameters: the OpenAI function shape, flattened) and what Parley does when the model calls one.
 */

/** Secret names: upper-case, as environment variables are written. */
export const secretNameSchema = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, {
  message: 'a secret name is 1-64 of A-Z 0-9 _, starting with a letter',
});

export const toolNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, {
  message: 'a tool name is 1-64 of A-Z a-z 0-9 _ -',
});

/** How an http tool authenticates, from one of the agent's secrets (never written in the definition). */
export const httpToolAuthSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer'), secret: secretNameSchema }),
  z.strictObject({
    type: z.literal('header'),
    name: z.string().regex(/^[A-Za-z0-9-]{1,64}$/),
    secret: secretNameSchema,
  }),
  z.strictObject({
    type: z.literal('basic'),
    username: z.string().min(1).max(256),
    secret: secretNameSchema,
  }),
]);
export type HttpToolAuth = z.infer<typeof httpToolAuthSchema>;

const template = z.string().min(1).max(4096);

/**
 * An HTTP call. `url`, header values and query values are templates: `{{args.<name>}}` (the model's
 * argument, URL-encoded in the URL), `{{session.id}}`, `{{session.channel}}`,
 * `{{session.messageMetadata.<path>}}` / `{{message_metadata.<path>}}` (this turn's A2A message
 * metadata), `{{secrets.<NAME>}}` (headers only). The body is the model's arguments as JSON
 * (`arguments`, the default for methods with a body) or none.
 */
export const httpToolSchema = z.strictObject({
  type: z.literal('http'),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('POST'),
  url: template,
  headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/), template).optional(),
  query: z.record(z.string().min(1).max(128), template).optional(),
  body: z.enum(['arguments', 'none']).optional(),
  auth: httpToolAuthSchema.optional(),
  /** One attempt's limit, ms. */
  timeoutMs: z.int().min(100).max(60_000).default(10_000),
  /** Attempts after the first on a connection error, a timeout, 429 or 5xx, with exponential backoff. */
  retries: z.int().min(0).max(5).default(1),
  /** The first retry's delay, ms (doubled each time, with jitter; a 429's Retry-After wins when longer). */
  retryBackoffMs: z.int().min(0).max(30_000).default(250),
  /** Response bytes read; a longer response fails the call (`response_too_large`). */
  maxResponseBytes: z
    .int()
    .min(1)
    .max(1024 * 1024)
    .default(64 * 1024),
});
export type HttpToolImplementation = z.infer<typeof httpToolSchema>;

export const toolImplementationSchema = z.discriminatedUnion('type', [
  /** One of Parley's built-in demo tools, by the tool's name (weather, lookup_order, calculator). */
  z.strictObject({ type: z.literal('builtin') }),
  httpToolSchema,
]);
export type ToolImplementation = z.infer<typeof toolImplementationSchema>;

/**
 * A long-running tool (http only): Parley calls it with a suspension id and a callback URL, the turn
 * suspends, and the external system posts the result later, signed (spec 001 §5 item 2).
 */
export const toolSuspensionSchema = z.strictObject({
  /** How long to wait for the callback; default TOOL_SUSPENSION_TIMEOUT_SECONDS. */
  timeoutSeconds: z
    .int()
    .min(1)
    .max(30 * 86_400)
    .optional(),
  /** What the agent says when the callback never came. */
  timeoutReply: z.string().min(1).max(2000).optional(),
  /** What a synchronous caller (chat/send) is told while the tool runs. */
  pendingReply: z.string().min(1).max(2000).optional(),
});
export type ToolSuspension = z.infer<typeof toolSuspensionSchema>;

export const agentToolDefinitionSchema = z
  .strictObject({
    name: toolNameSchema,
    description: z.string().max(1024).default(''),
    /** JSON Schema of the arguments. */
    parameters: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
    /** Absent: the built-in tool of that name (a tool without one fails with `tool_not_implemented`). */
    implementation: toolImplementationSchema.optional(),
    suspend: toolSuspensionSchema.optional(),
  })
  .refine((tool) => tool.suspend === undefined || tool.implementation?.type === 'http', {
    message: 'only http tools can suspend',
    path: ['suspend'],
  });
export type AgentToolDefinition = z.infer<typeof agentToolDefinitionSchema>;

/** The secret names a tool's definition refers to (auth and `{{secrets.X}}` in headers). */
export function secretNamesOf(tool: AgentToolDefinition): string[] {
  const impl = tool.implementation;
  if (impl?.type !== 'http') return [];
  const names = new Set<string>();
  if (impl.auth !== undefined) names.add(impl.auth.secret);
  for (const value of Object.values(impl.headers ?? {})) {
    for (const match of value.matchAll(/\{\{\s*secrets\.([A-Z][A-Z0-9_]*)\s*\}\}/g)) names.add(match[1]!);
  }
  return [...names];
}
